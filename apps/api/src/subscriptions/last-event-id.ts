/** A subscription's validated `lastEventId` input as the `event_id` to resume after (null: from now). */
export function parseLastEventId(value: string | null | undefined): number | null {
  return value === null || value === undefined ? null : Number(value);
}
