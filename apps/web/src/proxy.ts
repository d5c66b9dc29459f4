import { type NextRequest, NextResponse } from "next/server";
import { contentSecurityPolicy, NONCE_HEADER } from "@/lib/content-security-policy";
import { readRuntimeConfig } from "@/lib/runtime-config";

/**
 * Every page gets a Content-Security-Policy with a fresh nonce (Next's documented way: the policy
 * on the request lets Next put the nonce on its own inline scripts; `x-nonce` gives it to the
 * layout's). The pages render per request already (the layout reads the API URL at request time).
 */
export function proxy(request: NextRequest) {
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  const policy = contentSecurityPolicy({ nonce, api_url: readRuntimeConfig(process.env).api_url });
  const headers = new Headers(request.headers);
  headers.set(NONCE_HEADER, nonce);
  headers.set("content-security-policy", policy);
  const response = NextResponse.next({ request: { headers } });
  response.headers.set("content-security-policy", policy);
  return response;
}

export const config = {
  // Pages, not the hashed static files (they are not documents).
  matcher: [{ source: "/((?!_next/static|_next/image|icon.svg|favicon.ico).*)" }],
};
