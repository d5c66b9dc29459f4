export declare const LOCAL_PEER_HEADER: "x-parley-local-peer";
export declare function isLocalRequest(request: {
  remoteAddress: string | undefined;
  host: string | undefined;
}): boolean;
