import { Link } from '../router';

/** "Projects / <name>" in the header of a canvas page. */
export function ProjectBreadcrumb({ name }: { name: string }) {
  return (
    <nav className="breadcrumb" aria-label="Breadcrumb">
      <Link href="/projects">Projects</Link>
      <span aria-hidden="true">/</span>
      <span className="breadcrumb-current" aria-current="page">
        {name}
      </span>
    </nav>
  );
}
