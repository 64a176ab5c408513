// "Signed-in devices" on the API tokens page, with the person's other settings (the header's account menu has the
// one Sign out): Sign out of all devices ends every session of theirs, this one too (DELETE /api/user/sessions),
// and lands on `/`.
import { useSignOut } from '../hooks/use-sign-out';

export function SignOutEverywhere() {
  const { leaving, signOut } = useSignOut();
  return (
    <section className="sign-out-everywhere" aria-labelledby="signed-in-devices">
      <h2 id="signed-in-devices">Signed-in devices</h2>
      <p className="muted">Lost a device, or signed in on one that is not yours? End every session of yours, on every device and this one.</p>
      <button type="button" className="button danger" onClick={() => void signOut(true)} disabled={leaving}>
        {leaving ? 'Signing out…' : 'Sign out of all devices'}
      </button>
    </section>
  );
}
