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

/** Internal: a refusal raised deep inside fetch or the connector, re-labelled with the requested URL. */
export class FetchRefusal extends Error {
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'FetchRefusal';
  }
}
