// Generations into a canvas node (docs/api.md "Generating into a canvas node"): who may ask for one. A generation
// asked for a canvas node (`projectId` and `nodeId`) is refused to anyone but those who may `generate` on the project
// (src/auth/project-access.ts). The node's run state in the live document is written by the job runner alone
// (src/jobs/node-state.ts).
import type { ProjectAccess } from '../auth/project-access.js';
import type { GenerationNode } from '../db/repositories/index.js';

export interface GenerationNodes {
  /** 404 when the user has no role on the project (or there is none), 403 for a viewer (`generate`): as the canvas routes. */
  authorize(userId: string, node: GenerationNode): Promise<void>;
}

export interface GenerationNodesDeps {
  access: Pick<ProjectAccess, 'require'>;
}

export function createGenerationNodes({ access }: GenerationNodesDeps): GenerationNodes {
  return {
    async authorize(userId, { projectId }) {
      await access.require({ userId }, projectId, 'generate');
    },
  };
}
