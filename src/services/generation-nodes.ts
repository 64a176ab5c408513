// Generations into a canvas node (docs/api.md "Generating into a canvas node"): who may ask for one. A generation
// asked for a canvas node (`projectId` and `nodeId`) is refused to anyone but the project's owner and editors. The
// node's run state in the live document is written by the job runner alone (src/jobs/node-state.ts).
import type { GenerationNode, ProjectRole } from '../db/repositories/index.js';
import { forbidden, projectNotFound } from '../errors.js';
import { isUuid } from '../ids.js';

export interface GenerationNodes {
  /** 404 when the user has no role on the project (or there is none), 403 for a viewer: as the canvas routes. */
  authorize(userId: string, node: GenerationNode): Promise<void>;
}

export interface GenerationNodesDeps {
  roleOf: (userId: string, projectId: string) => Promise<ProjectRole | null>;
}

export function createGenerationNodes({ roleOf }: GenerationNodesDeps): GenerationNodes {
  return {
    async authorize(userId, { projectId }) {
      const role = isUuid(projectId) ? await roleOf(userId, projectId) : null;
      if (!role) throw projectNotFound();
      if (role === 'viewer') throw forbidden();
    },
  };
}
