import { agentsRouter } from "../routers/agents/router";
import { agentTestsRouter } from "../routers/agent-tests/router";
import { creditsRouter } from "../routers/credits/router";
import { apiKeysRouter } from "../routers/api-keys/router";
import { membersRouter } from "../routers/members/router";
import { invitationsRouter } from "../routers/invitations/router";
import { accountRouter } from "../routers/account/router";
import { organizationsRouter } from "../routers/organizations/router";
import { enrollmentRouter } from "../routers/enrollment/router";
import { sequencesRouter } from "../routers/sequences/router";
import { conversationsRouter } from "../routers/conversations/router";
import { recordingsRouter } from "../routers/recordings/router";
import { webhooksRouter } from "../routers/webhooks/router";
import { meetingsRouter } from "../routers/meetings/router";
import { jobsRouter } from "../routers/jobs/router";
import { customersRouter } from "../routers/customers/router";
import { callsRouter } from "../routers/calls/router";
import { suppressionsRouter } from "../routers/suppressions/router";
import { eventsRouter } from "../routers/events/router";
import { consentRouter } from "../routers/consent/router";
import { overviewRouter } from "../routers/overview/router";
import { integrationsRouter } from "../routers/integrations/router";
import { numbersRouter } from "../routers/numbers/router";
import { createCallerFactory, router } from "./init";

export const appRouter = router({
  meetings: meetingsRouter,
  conversations: conversationsRouter,
  recordings: recordingsRouter,
  agents: agentsRouter,
  agentTests: agentTestsRouter,
  credits: creditsRouter,
  apiKeys: apiKeysRouter,
  members: membersRouter,
  invitations: invitationsRouter,
  account: accountRouter,
  organizations: organizationsRouter,
  enrollment: enrollmentRouter,
  sequences: sequencesRouter,
  webhooks: webhooksRouter,
  jobs: jobsRouter,
  customers: customersRouter,
  calls: callsRouter,
  suppressions: suppressionsRouter,
  events: eventsRouter,
  consent: consentRouter,
  overview: overviewRouter,
  integrations: integrationsRouter,
  numbers: numbersRouter,
});

export type AppRouter = typeof appRouter;
export const createCaller = createCallerFactory(appRouter);
