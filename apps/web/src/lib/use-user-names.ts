"use client";

import { useQuery } from "@tanstack/react-query";
import { useCallback, useMemo } from "react";
import type { ParleyApi, WhoAmI } from "./parley-api";

/**
 * `nameOf(user_id)` for the ids on screen (who answered what): "you" for the signed-in person, the
 * user's name from `users.names` for everyone else. Unknown ids read "another user", never a raw id.
 */
export function useUserNames(api: ParleyApi, me: WhoAmI, user_ids: readonly string[]) {
  const others = useMemo(
    () => [...new Set(user_ids.filter((id) => id && id !== me.user_id))].sort(),
    [user_ids, me.user_id],
  );
  const names = useQuery({
    queryKey: ["user-names", others],
    queryFn: () => api.userNames(others),
    enabled: others.length > 0,
    staleTime: 5 * 60_000,
  });
  const data = names.data;
  return useCallback(
    (user_id: string) => (user_id === me.user_id ? "you" : (data?.get(user_id) ?? "another user")),
    [data, me.user_id],
  );
}
