// Preload for test servers that listen on every interface: binds `listen(port, cb)` calls to
// 127.0.0.1, so nothing started by the tests is reachable from outside this machine.
import net from "node:net";

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const [port, maybeHost] = args;
  const portOnly = (typeof port === "number" || (typeof port === "string" && /^\d+$/.test(port))) && typeof maybeHost !== "string";
  return portOnly ? listen.call(this, Number(port), "127.0.0.1", ...args.slice(1)) : listen.apply(this, args);
};
