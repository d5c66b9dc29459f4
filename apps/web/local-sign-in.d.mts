import type { IncomingMessage, ServerResponse } from "node:http";

export declare const LOCAL_SESSION_COOKIE: "parley_local_session";
export declare function createLocalSignIn(secrets: {
  token: string;
  code: string;
}): (request: IncomingMessage, response: ServerResponse) => boolean;
