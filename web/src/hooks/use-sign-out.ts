// Sign out (this browser), or of every device (DELETE /api/user/sessions): analytics forgets the person first, and
// `leaving` is true until the page goes (false again if the request failed, so it can be tried again).
import { useState } from 'react';
import { resetAnalytics } from '../analytics';
import { signOut, signOutEverywhere } from '../api/auth';

export function useSignOut(): { leaving: boolean; signOut: (everywhere: boolean) => Promise<void> } {
  const [leaving, setLeaving] = useState(false);
  const leave = async (everywhere: boolean) => {
    setLeaving(true);
    resetAnalytics();
    try {
      await (everywhere ? signOutEverywhere() : signOut());
    } catch {
      setLeaving(false);
    }
  };
  return { leaving, signOut: leave };
}
