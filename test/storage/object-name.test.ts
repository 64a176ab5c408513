import { describe, expect, it } from 'vitest';
import { isValidObjectName, nameUnderBase, publicBase } from '../../src/storage/object-name.js';

describe('isValidObjectName', () => {
  it.each(['a.png', '1700000000000-abc-photo.png', 'generated-1-x.png', 'A_b-C.9', 'x'.repeat(200), '-dash', '_u'])(
    'accepts %s',
    (name) => expect(isValidObjectName(name)).toBe(true),
  );
  it.each(['', '.', '..', '.hidden', 'a/b', 'a\\b', '../a', 'a b', 'a%2Fb', 'ü', 'a\nb', 'x'.repeat(201)])(
    'refuses %j',
    (name) => expect(isValidObjectName(name)).toBe(false),
  );
  it('refuses non-strings', () => {
    expect(isValidObjectName(undefined)).toBe(false);
    expect(isValidObjectName(42)).toBe(false);
  });
});

describe('nameUnderBase', () => {
  const base = 'http://127.0.0.1:10000/devstoreaccount1/images';

  it('maps <base>/<name>, with or without a trailing slash on the base', () => {
    expect(nameUnderBase(`${base}/a.png`, base)).toBe('a.png');
    expect(nameUnderBase(`${base}/a.png`, `${base}/`)).toBe('a.png');
    expect(nameUnderBase('https://cdn.example.com/a.png', 'https://cdn.example.com')).toBe('a.png');
  });

  it.each([
    'http://127.0.0.1:10000/devstoreaccount1/images2/a.png',
    'http://127.0.0.1:10000/devstoreaccount1/a.png',
    'http://127.0.0.1:10001/devstoreaccount1/images/a.png',
    'http://localhost:10000/devstoreaccount1/images/a.png',
    'HTTP://127.0.0.1:10000/devstoreaccount1/images/a.png',
    'http://127.0.0.1:10000/devstoreaccount1/images/x/../a.png',
    'http://127.0.0.1:10000/devstoreaccount1/images/%2e%2e/a.png',
    'http://127.0.0.1:10000/devstoreaccount1/images/%61.png',
    'http://127.0.0.1:10000/devstoreaccount1/images/a.png/',
  ])('refuses %s', (url) => expect(nameUnderBase(url, base)).toBeNull());

  it('refuses anything when the base itself is not a URL', () => {
    expect(nameUnderBase('http://x/a.png', 'not a url')).toBeNull();
  });
});

describe('publicBase', () => {
  it('drops query, fragment and trailing slashes', () => {
    expect(publicBase('https://acct.blob.core.windows.net/images?sv=1&sig=SECRET')).toBe(
      'https://acct.blob.core.windows.net/images',
    );
    expect(publicBase('https://cdn.example.com/img//#x')).toBe('https://cdn.example.com/img');
  });
});
