// "Start from a template" on the projects page: everyone's newest templates in one row. Shown once there is
// at least one; a failed load says so and offers a retry.
import type { TemplateSummary } from '../api/client';
import { useTemplates } from '../hooks/use-templates';
import { TemplateCard } from './template-card';
import { LoadError } from './load-error';

export function TemplatesRow({ onStart }: { onStart: (template: TemplateSummary) => Promise<void> }) {
  const { state, reload, remove } = useTemplates();

  if (state.status === 'loading' || (state.status === 'ready' && state.templates.length === 0)) return null;
  return (
    <section className="templates" aria-labelledby="templates-heading">
      <h2 id="templates-heading">Start from a template</h2>
      {state.status === 'error' ? (
        <LoadError message={state.message} onRetry={() => void reload()} />
      ) : (
        <ul className="template-list" aria-label="Templates">
          {state.templates.map((template) => (
            <TemplateCard key={template.id} template={template} onStart={onStart} onDelete={template.mine ? remove : undefined} />
          ))}
        </ul>
      )}
    </section>
  );
}
