// The in-memory repositories of the services' unit tests (test/fakes/repositories.ts) against the repository
// contract that the real ones pass on PostgreSQL (test/api/repositories.test.ts), which calls every method the
// fakes have.
import { beforeAll, describe, expect, it } from 'vitest';
import { repositoryContract, type ContractRepositories } from '../contract/repositories/index.js';
import { createFakeRepositories } from '../fakes/repositories.js';

describe('in-memory repository fakes', () => {
  const called = new Set<string>();
  const methods: string[] = [];
  let fakes: ContractRepositories;

  beforeAll(() => {
    const repositories = Object.entries(createFakeRepositories()).filter(([key]) => key !== 'state' && key !== 'addUser') as Array<[string, object]>;
    // Each repository as a proxy that notes which of its methods were called.
    fakes = Object.fromEntries(
      repositories.map(([repo, impl]) => {
        methods.push(...Object.keys(impl).map((method) => `${repo}.${method}`));
        const noted = new Proxy(impl, {
          get(target, method: string) {
            const value = Reflect.get(target, method) as unknown;
            return typeof value === 'function' ? (...args: unknown[]) => (called.add(`${repo}.${method}`), (value as (...a: unknown[]) => unknown).apply(target, args)) : value;
          },
        });
        return [repo, noted];
      }),
    ) as unknown as ContractRepositories;
  });

  repositoryContract(() => fakes);

  it('the contract calls every method of every fake', () => {
    expect(methods.length).toBeGreaterThan(50);
    expect(methods.filter((m) => !called.has(m))).toEqual([]);
  });
});
