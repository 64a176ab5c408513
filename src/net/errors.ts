/** An input image URL that was refused or could not be fetched. `reason` is short and safe to show a user. */
export class ImageFetchError extends Error {
  constructor(
    readonly url: string,
    readonly reason: string,
  ) {
    super(`Invalid image: ${url} (${reason})`);
    this.name = 'ImageFetchError';
  }
}

/**
 * The one reason for a host that may not be fetched, whether its name did not resolve or it resolved (or is) an
 * address we refuse: telling the two apart would tell an outsider which internal names exist.
 */
export const HOST_REFUSED = 'host not found or not allowed';

/** Internal: a refusal raised deep inside fetch or the connector, re-labelled with the requested URL. */
export class FetchRefusal extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'FetchRefusal';
  }
}
