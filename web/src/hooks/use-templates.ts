// Templates (docs/api.md "Templates"): everyone's newest templates, the user's own marked `mine` (they may
// delete those), and publishing a canvas as a new template.
import { useCallback, useEffect, useState } from 'react';
import { api, type Template, type TemplateBody } from '../api/client';
import { call } from './use-projects';

export type TemplatesState = { status: 'loading' } | { status: 'ready'; templates: Template[] } | { status: 'error'; message: string };

export function useTemplates() {
  const [state, setState] = useState<TemplatesState>({ status: 'loading' });

  const load = useCallback(async () => {
    setState({ status: 'loading' });
    try {
      const templates = await call(api.GET('/api/upload/templates'), 'Could not load the templates');
      setState({ status: 'ready', templates });
    } catch (err) {
      setState({ status: 'error', message: (err as Error).message });
    }
  }, []);

  useEffect(() => {
    void load();
  }, [load]);

  const remove = useCallback(async (id: string): Promise<void> => {
    await call(api.DELETE('/api/upload/templates/{id}', { params: { path: { id } } }), 'Could not delete the template');
    setState((s) => (s.status === 'ready' ? { status: 'ready', templates: s.templates.filter((t) => t.id !== id) } : s));
  }, []);

  return { state, reload: load, remove };
}

/** Publishes a canvas (its nodes, edges and viewport) as a template for everyone, under `templateName`. */
export async function publishTemplate(templateName: string, canvas: TemplateBody['canvas']): Promise<void> {
  await call(api.POST('/api/upload/templates', { body: { templateName, canvas } }), 'Could not save the template');
}
