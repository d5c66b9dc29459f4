"use client";

import { useQuery } from "@tanstack/react-query";
import { useCallback } from "react";
import type { ModelChoice, ParleyApi } from "./parley-api";

/**
 * The models the server offers (`model.list`, the default first) and `labelOf(model_id)`. Pickers
 * show only when there is a choice: `choices` is empty while loading and when one model is listed.
 */
export function useModels(api: ParleyApi) {
  const models = useQuery({ queryKey: ["models"], queryFn: () => api.listModels(), staleTime: 60_000 });
  const listed: readonly ModelChoice[] = models.data ?? [];
  const labelOf = useCallback(
    (model_id: string | null) =>
      model_id === null
        ? (listed[0]?.label ?? "Default model")
        : (listed.find((model) => model.model_id === model_id)?.label ?? model_id),
    [listed],
  );
  return { choices: listed.length > 1 ? listed : [], labelOf };
}
