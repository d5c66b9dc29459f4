/** The web team's port range is 4300–4399: web server on 4300, its API on 4390. */
export const WEB_PORT = Number(process.env.PARLEY_E2E_WEB_PORT ?? 4300);
export const API_PORT = Number(process.env.PARLEY_E2E_API_PORT ?? 4390);
/** A second web server, started by the local sign-in tests as `npm start` runs it (token and link code). */
export const LOCAL_WEB_PORT = Number(process.env.PARLEY_E2E_LOCAL_WEB_PORT ?? 4301);
