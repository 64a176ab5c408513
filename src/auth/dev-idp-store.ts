// Where the bundled development identity provider (./dev-idp.ts) keeps its sessions, grants, codes and
// interactions: this process's memory, on purpose — it signs people in on one development machine and forgets them
// on restart. Given to oidc-provider as its adapter, so it does not fall back to its own quick-start one and print a
// warning that the data must move elsewhere (true for a real identity provider, not for this one). Expired entries
// are dropped when read, and on every write past a bounded number of entries.
type Payload = Record<string, unknown> & { grantId?: string; userCode?: string; uid?: string; consumed?: number };

/** The most entries kept before a write sweeps expired ones (a development provider never holds many). */
const SWEEP_AT = 10_000;

export function devIdpStore(now: () => number = Date.now) {
  const entries = new Map<string, { payload: Payload; expiresAt: number }>();
  const live = (key: string) => {
    const entry = entries.get(key);
    if (entry && entry.expiresAt <= now()) entries.delete(key);
    return entries.get(key);
  };
  const sweep = () => {
    for (const [key, { expiresAt }] of entries) if (expiresAt <= now()) entries.delete(key);
  };

  /** One adapter per model (Session, Grant, AuthorizationCode, …), as oidc-provider constructs them. */
  return class DevIdpAdapter {
    constructor(private readonly model: string) {}

    private key(id: string) {
      return `${this.model}:${id}`;
    }

    async upsert(id: string, payload: Payload, expiresIn: number): Promise<void> {
      if (entries.size >= SWEEP_AT) sweep();
      entries.set(this.key(id), { payload, expiresAt: expiresIn ? now() + expiresIn * 1000 : Infinity });
    }

    async find(id: string): Promise<Payload | undefined> {
      return live(this.key(id))?.payload;
    }

    /** This model's entry whose payload has `value` at `field`, if it has not expired. */
    private findBy(field: 'uid' | 'userCode', value: string): Payload | undefined {
      for (const [key, entry] of entries) if (key.startsWith(`${this.model}:`) && entry.payload[field] === value) return live(key)?.payload;
      return undefined;
    }

    async findByUid(uid: string): Promise<Payload | undefined> {
      return this.findBy('uid', uid);
    }

    async findByUserCode(userCode: string): Promise<Payload | undefined> {
      return this.findBy('userCode', userCode);
    }

    async consume(id: string): Promise<void> {
      const entry = live(this.key(id));
      if (entry) entry.payload.consumed = Math.floor(now() / 1000);
    }

    async destroy(id: string): Promise<void> {
      entries.delete(this.key(id));
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      for (const [key, entry] of entries) if (entry.payload.grantId === grantId) entries.delete(key);
    }
  };
}
