import { adminInteractions } from "./procedures/admin-interactions.js";
import { adminOnInteraction } from "./procedures/admin-on-interaction.js";
import { adminUsersCreate } from "./procedures/admin-users-create.js";
import { adminUsersRevoke } from "./procedures/admin-users-revoke.js";
import { authWhoami } from "./procedures/auth-whoami.js";
import { modelList } from "./procedures/model-list.js";
import { sessionClose } from "./procedures/session-close.js";
import { sessionCreate } from "./procedures/session-create.js";
import { sessionGet } from "./procedures/session-get.js";
import { sessionInteractions } from "./procedures/session-interactions.js";
import { sessionList } from "./procedures/session-list.js";
import { sessionMessages } from "./procedures/session-messages.js";
import { sessionOnInteraction } from "./procedures/session-on-interaction.js";
import { sessionOnMutation } from "./procedures/session-on-mutation.js";
import { sessionPrompt } from "./procedures/session-prompt.js";
import { sessionQueuedPrompts } from "./procedures/session-queued-prompts.js";
import { sessionRename } from "./procedures/session-rename.js";
import { sessionRespond } from "./procedures/session-respond.js";
import { sessionSet } from "./procedures/session-set.js";
import { sessionStatus } from "./procedures/session-status.js";
import { sessionStop } from "./procedures/session-stop.js";
import { sessionWithdrawPrompt } from "./procedures/session-withdraw-prompt.js";
import { usersNames } from "./procedures/users-names.js";
import { workspaceList } from "./procedures/workspace-list.js";
import { router } from "./trpc.js";

/** The public API (README.md, docs/http.md). Wiring only: each procedure lives in its own file. */
export const appRouter = router({
  session: router({
    create: sessionCreate,
    list: sessionList,
    get: sessionGet,
    prompt: sessionPrompt,
    queuedPrompts: sessionQueuedPrompts,
    withdrawPrompt: sessionWithdrawPrompt,
    stop: sessionStop,
    rename: sessionRename,
    close: sessionClose,
    messages: sessionMessages,
    interactions: sessionInteractions,
    respond: sessionRespond,
    status: sessionStatus,
    set: sessionSet,
    onMutation: sessionOnMutation,
    onInteraction: sessionOnInteraction,
  }),
  admin: router({
    interactions: adminInteractions,
    onInteraction: adminOnInteraction,
    users: router({ create: adminUsersCreate, revoke: adminUsersRevoke }),
  }),
  auth: router({ whoami: authWhoami }),
  workspace: router({ list: workspaceList }),
  model: router({ list: modelList }),
  users: router({ names: usersNames }),
});

export type AppRouter = typeof appRouter;
