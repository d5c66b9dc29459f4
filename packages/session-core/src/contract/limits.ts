/**
 * Input limits (docs/behaviour.md#limits); beyond them a request is `invalid_input` (never
 * clamped).
 */
export const LIMITS = {
  prompt_chars: 32_000,
  answer_chars: 10_000,
  answers_per_interaction: 50,
  session_page_default: 50,
  session_page_max: 200,
  message_page_default: 200,
  message_page_max: 500,
  inbox_page_default: 50,
  inbox_page_max: 200,
  id_chars: 200,
  title_chars: 200,
  user_name_chars: 64,
} as const;
