import type { ReactNode } from 'react';
import { Link } from '../router';

/** "Projects / <name>" in the header of a canvas page; `children` (the renamable name, ./project-name.tsx) replace the plain name. */
export function ProjectBreadcrumb({ name, children }: { name: string; children?: ReactNode }) {
  return (
    <nav className="breadcrumb" aria-label="Breadcrumb">
      <Link href="/projects">Projects</Link>
      <span aria-hidden="true">/</span>
      {children ?? (
        <span className="breadcrumb-current" aria-current="page" title={name}>
          {name}
        </span>
      )}
    </nav>
  );
}
