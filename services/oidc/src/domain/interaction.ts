// A validated authorization request parked for the pages at /interaction/{uid}: what of it is kept while the person
// signs in (the client by id, the prompt as a list).
import type { AuthorizationRequest } from './authorize-request';
import type { Interaction } from './ports';

export function toInteraction(request: AuthorizationRequest, createdAt: number): Interaction {
  const { client, prompt, ...checked } = request;
  return { ...checked, clientId: client.clientId, prompt: [...prompt], createdAt };
}
