import { describe, expect, it } from "vitest";
import { IsolateCache } from "../../src/core/isolate-cache";

/** The per-isolate record cache behind credentials, accounts, connections and workflow lists. */
const counting = (value: string) => {
  const loader = {
    reads: 0,
    load: async () => {
      loader.reads++;
      return value;
    },
  };
  return loader;
};
const inForeground = () => undefined;

describe("the isolate cache", () => {
  it("answers a fresh record without reading it again", async () => {
    const cache = new IsolateCache<string>();
    const source = counting("v1");
    expect(await cache.get("k", source.load, inForeground)).toBe("v1");
    expect(await cache.get("k", source.load, inForeground)).toBe("v1");
    expect(source.reads).toBe(1);
  });

  it("never keeps a value heavier than an eighth of its weight bound", async () => {
    const cache = new IsolateCache<string>({ maxWeight: 80, weigh: (value) => value.length });
    const heavy = counting("x".repeat(11));
    await cache.get("heavy", heavy.load, inForeground);
    await cache.get("heavy", heavy.load, inForeground);
    expect(heavy.reads).toBe(2);
    const light = counting("x".repeat(10));
    await cache.get("light", light.load, inForeground);
    await cache.get("light", light.load, inForeground);
    expect(light.reads).toBe(1);
  });

  it("starts afresh when its weight bound would be passed, and counts a replaced value once", async () => {
    const cache = new IsolateCache<string>({ maxWeight: 80, weigh: (value) => value.length });
    for (let i = 0; i < 8; i++) cache.set(`k${i}`, "x".repeat(10));
    cache.set("k0", "y".repeat(10)); // replaces k0: still 80 in all
    const kept = counting("unused");
    expect(await cache.get("k7", kept.load, inForeground)).toBe("x".repeat(10));
    expect(kept.reads).toBe(0);
    cache.set("k8", "z"); // 81 > 80: everything else goes
    expect(await cache.get("k7", kept.load, inForeground)).toBe("unused");
    expect(kept.reads).toBe(1);
  });

  it("holds at most maxEntries records", async () => {
    const cache = new IsolateCache<string>({ maxEntries: 2 });
    cache.set("a", "1");
    cache.set("b", "2");
    cache.set("c", "3");
    const a = counting("read again");
    expect(await cache.get("a", a.load, inForeground)).toBe("read again");
  });

  it("does not keep a read that raced a change made in this isolate", async () => {
    const cache = new IsolateCache<string>();
    let finish: (value: string) => void = () => undefined;
    const slowRead = cache.get("k", () => new Promise<string>((resolve) => (finish = resolve)), inForeground);
    cache.forget(() => true);
    finish("before the change");
    expect(await slowRead).toBe("before the change");
    const next = counting("after the change");
    expect(await cache.get("k", next.load, inForeground)).toBe("after the change");
  });
});
