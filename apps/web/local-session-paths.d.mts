export declare const LOCAL_SIGN_IN_PATH: "/local-sign-in";
export declare const LOCAL_SESSION_TOKEN_PATH: "/local-session/token";
export declare const LOCAL_SESSION_HEADER: "x-parley-local-session";
