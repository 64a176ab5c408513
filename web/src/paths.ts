// Addresses of the client's pages that several pages link to.

/** A project's gallery (`q`: the search, `model`: the model filter, both kept in the URL). */
export const galleryPath = (projectId: string, q = '', model = '') => {
  const query = new URLSearchParams();
  if (q.trim()) query.set('q', q.trim());
  if (model) query.set('model', model);
  const search = query.toString().replace(/\+/g, '%20');
  return `/projects/${encodeURIComponent(projectId)}/gallery${search ? `?${search}` : ''}`;
};

/** What a project's generations cost, per person (its owner and members). */
export const projectSpendPath = (projectId: string) => `/projects/${encodeURIComponent(projectId)}/spend`;
