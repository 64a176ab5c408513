// Addresses of the client's pages that several pages link to.

/** A project's gallery (`q`: the search, kept in the URL). */
export const galleryPath = (projectId: string, q = '') =>
  `/projects/${encodeURIComponent(projectId)}/gallery${q.trim() ? `?q=${encodeURIComponent(q.trim())}` : ''}`;
