/** One SSE message of a tRPC subscription: its `id` (a tracked item's id) and parsed `data`. */
export interface SseItem {
  id: string | undefined;
  event: string | undefined;
  data: unknown;
}

/**
 * A `session.onMutation` stream read as raw Server-Sent Events, as a client in another language
 * would: what the wire carries (ids included), with no SDK in between. `waitFor` resolves on the
 * first item, already read or still to come, that matches.
 */
export class SseFeed {
  readonly items: SseItem[] = [];
  readonly #controller = new AbortController();
  readonly #waiters = new Set<{ match: (item: SseItem) => boolean; resolve: (item: SseItem) => void }>();
  #reading: Promise<void> = Promise.resolve();

  static async open(options: {
    url: string;
    token: string;
    input: Record<string, unknown>;
    last_event_id?: string;
  }): Promise<SseFeed> {
    const feed = new SseFeed();
    const input = encodeURIComponent(JSON.stringify(options.input));
    const headers: Record<string, string> = {
      accept: "text/event-stream",
      authorization: `Bearer ${options.token}`,
    };
    if (options.last_event_id !== undefined) headers["last-event-id"] = options.last_event_id;
    const response = await fetch(`${options.url}/trpc/session.onMutation?input=${input}`, {
      headers,
      signal: feed.#controller.signal,
    });
    if (response.status !== 200 || response.body === null)
      throw new Error(`SSE subscription answered ${response.status}: ${await response.text()}`);
    feed.#reading = feed.#read(response.body).catch((error: unknown) => {
      if (!feed.#controller.signal.aborted) throw error;
    });
    return feed;
  }

  /** The mutations (tracked items), in arrival order, with their SSE ids. */
  get tracked(): { id: string; data: Record<string, unknown> }[] {
    return this.items
      .filter((item) => item.id !== undefined && item.id !== "" && item.event === undefined)
      .map((item) => ({ id: item.id as string, data: item.data as Record<string, unknown> }));
  }

  waitFor(match: (item: SseItem) => boolean): Promise<SseItem> {
    const found = this.items.find(match);
    if (found !== undefined) return Promise.resolve(found);
    return new Promise((resolve) => this.#waiters.add({ match, resolve }));
  }

  async close(): Promise<void> {
    this.#controller.abort();
    await this.#reading;
  }

  async #read(body: ReadableStream<Uint8Array>): Promise<void> {
    const reader = body.pipeThrough(new TextDecoderStream()).getReader();
    let buffer = "";
    for (;;) {
      const chunk = await reader.read();
      if (chunk.done) return;
      buffer += chunk.value;
      let end = buffer.indexOf("\n\n");
      while (end >= 0) {
        this.#take(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        end = buffer.indexOf("\n\n");
      }
    }
  }

  #take(block: string): void {
    let id: string | undefined;
    let event: string | undefined;
    let data = "";
    for (const line of block.split("\n")) {
      const colon = line.indexOf(":");
      if (colon <= 0) continue;
      const field = line.slice(0, colon);
      const value = line.slice(colon + 1).replace(/^ /, "");
      if (field === "id") id = value;
      else if (field === "event") event = value;
      else if (field === "data") data += value;
    }
    if (id === undefined && event === undefined && data === "") return;
    const item: SseItem = { id, event, data: data === "" ? undefined : JSON.parse(data) };
    this.items.push(item);
    for (const waiter of this.#waiters) {
      if (waiter.match(item)) {
        this.#waiters.delete(waiter);
        waiter.resolve(item);
      }
    }
  }
}
