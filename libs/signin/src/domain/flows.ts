// The rules of a browser's sign-in flow: only identifiers this host issued are accepted (anything else starts a
// new flow, counted per address, and never on a post), and a sign-in whose account's authority moved since is
// forgotten before the request uses it.
import { authorityHolds } from '@svc/issuance';
import type { RateLimiter } from '@svc/platform';
import type { FlowState, SigninPorts } from './ports';
import { newKey } from './secrets';

/** Forgets who signed in on a flow (sign-out, or an authority that moved since). */
export function forgetSignIn(flow: FlowState): void {
  delete flow.accountId;
  delete flow.authTime;
  delete flow.amr;
  delete flow.acr;
  delete flow.authority;
}

/**
 * The browser's flow for a target: the flow its cookie names when the host issued it and still holds it, else a
 * new one (`issued` hears its identifier at once, for the cookie). A post without a held flow gets undefined: it
 * could not pass its CSRF check (a new flow's token is unknown to it), so it is refused before it writes a flow or
 * spends the address's count. A sign-in whose account's authority moved since (a passkey removed, an identifier
 * reset, a status change) is dropped: the request, and every later one, is signed out.
 */
export async function openFlow(
  ports: Pick<SigninPorts, 'flows' | 'issuance'>,
  request: { flowId: string | undefined; post: boolean; clientIp: string; newFlowLimit?: RateLimiter },
  targetKey: string,
  issued: (flowId: string) => void,
): Promise<{ flowId: string; flow: FlowState } | undefined> {
  const { flows } = ports;
  let flowId = request.flowId;
  if (!flowId || !(await flows.isIssued(flowId))) {
    if (request.post) return undefined;
    await request.newFlowLimit?.consume(request.clientIp);
    flowId = await flows.issue();
    issued(flowId);
  }
  const flow = (await flows.load(flowId, targetKey)) ?? { csrf: newKey('') };
  if (
    flow.accountId &&
    !authorityHolds(flow.authority, await ports.issuance.accounts.currentAuthority(flow.accountId))
  ) {
    forgetSignIn(flow);
    await flows.save(flowId, targetKey, flow);
  }
  return { flowId, flow };
}
