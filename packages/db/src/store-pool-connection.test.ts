import { describe, expect, it } from "vitest";
import { storePoolConnection } from "./store-pool-connection.js";

describe("storePoolConnection", () => {
  it("sends the store's settings as the startup options", () => {
    expect(storePoolConnection("postgresql://postgres@127.0.0.1:5432/parley")).toEqual({
      connectionString: "postgresql://postgres@127.0.0.1:5432/parley",
      options: "-c plan_cache_mode=force_generic_plan",
    });
  });

  it("keeps the options a URL gives, before the store's, and takes them out of the URL (pg would let them win)", () => {
    const url = `postgresql://postgres@127.0.0.1:5432/parley?sslmode=disable&options=${encodeURIComponent("-c search_path=app")}`;
    expect(storePoolConnection(url)).toEqual({
      connectionString: "postgresql://postgres@127.0.0.1:5432/parley?sslmode=disable",
      options: "-c search_path=app -c plan_cache_mode=force_generic_plan",
    });
  });
});
