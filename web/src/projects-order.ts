// The projects page's order and search: sort by last edit (the canvas's last change, else the creation), name or
// creation, newest first for times; search keeps the projects whose name holds the text (any case, any accents).
import type { ProjectActivity } from './hooks/use-project-activity';

export type ProjectSort = 'edited' | 'name' | 'created';

export const SORT_LABELS: Record<ProjectSort, string> = { edited: 'Last edited', name: 'Name', created: 'Created' };

interface Listed {
  id: string;
  name: string;
  createdDate: string;
}

/** When the project was last edited (ISO 8601): its canvas's last change, or its creation. */
export const lastEdited = (project: Listed, activity: ReadonlyMap<string, ProjectActivity>): string =>
  activity.get(project.id)?.lastEditedAt ?? project.createdDate;

const fold = (text: string) => text.normalize('NFKD').replace(/\p{M}/gu, '').toLocaleLowerCase();
const collator = new Intl.Collator(undefined, { sensitivity: 'base', numeric: true });

/** The projects matching `query`, in the chosen order (ties: newest first, then by id). */
export function arrange<T extends Listed>(projects: readonly T[], opts: { sort: ProjectSort; query: string; activity: ReadonlyMap<string, ProjectActivity> }): T[] {
  const wanted = fold(opts.query.trim());
  const shown = wanted ? projects.filter((p) => fold(p.name).includes(wanted)) : [...projects];
  const newest = (a: T, b: T) => b.createdDate.localeCompare(a.createdDate) || b.id.localeCompare(a.id);
  const by: Record<ProjectSort, (a: T, b: T) => number> = {
    edited: (a, b) => Date.parse(lastEdited(b, opts.activity)) - Date.parse(lastEdited(a, opts.activity)) || newest(a, b),
    name: (a, b) => collator.compare(a.name, b.name) || newest(a, b),
    created: newest,
  };
  return shown.sort(by[opts.sort]);
}

const UNITS: Array<[Intl.RelativeTimeFormatUnit, number]> = [
  ['year', 365 * 24 * 3600],
  ['month', 30 * 24 * 3600],
  ['week', 7 * 24 * 3600],
  ['day', 24 * 3600],
  ['hour', 3600],
  ['minute', 60],
];
const relative = new Intl.RelativeTimeFormat(undefined, { numeric: 'auto' });

/** "just now", "5 minutes ago", "yesterday", "3 weeks ago" … */
export function timeAgo(iso: string, now = Date.now()): string {
  const seconds = Math.round((now - Date.parse(iso)) / 1000);
  if (seconds < 45) return 'just now';
  for (const [unit, size] of UNITS) {
    if (seconds >= size) return relative.format(-Math.floor(seconds / size), unit);
  }
  return relative.format(-1, 'minute');
}
