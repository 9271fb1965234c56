import { TEN_SET_STEPS, benchHub, median } from "./lib.mjs";
const bench = await benchHub();
try {
  const wf = await (await bench.post("/v1/workflows", { workflow_name: "Ten", description: "b", steps: TEN_SET_STEPS })).json();
  const one = await (await bench.post("/v1/workflows", { workflow_name: "One", description: "b", steps: [{ id: "a", type: "set", values: { x: 1 } }] })).json();
  const time = async (label, f) => { const xs = []; for (let i = 0; i < 60; i++) { const t = performance.now(); await f(); xs.push(performance.now() - t); } console.log(label.padEnd(20), median(xs.slice(10)).toFixed(1), "ms"); };
  const exec = (id, wait) => async () => { const r = await fetch(`${bench.hub.origin}/v1/workflows/${id}/execute`, { method: "POST", headers: { "Content-Type": "application/json", Authorization: `Bearer ${bench.key}`, ...(wait ? { Prefer: "wait=30" } : {}) }, body: "{}" }); await r.text(); };
  await time("health", async () => (await fetch(`${bench.hub.origin}/health`)).text());
  await time("me", async () => (await bench.get("/v1/me")).text());
  await time("get workflow", async () => (await bench.get(`/v1/workflows/${wf.id}`)).text());
  await time("execute 10 wait", exec(wf.id, true));
  await time("execute 1 wait", exec(one.id, true));
  await time("execute 10 nowait", exec(wf.id, false));
} finally { await bench.stop(); }
