// Who else has this canvas open: one avatar (initials in their colour) per person, however many tabs they have.
import type { LiveSession } from '../canvas/live-session';
import { initialsOf, peopleOf } from '../canvas/presence';
import { useStore } from '../hooks/use-live-session';

const SHOWN = 5;

export function PresenceAvatars({ session }: { session: LiveSession }) {
  const people = peopleOf(useStore(session.peers));
  if (people.length === 0) return null;
  const more = people.length - SHOWN;
  return (
    <ul className="presence-avatars" aria-label="People here">
      {people.slice(0, SHOWN).map((person) => (
        <li key={person.id}>
          <span className="presence-avatar" role="img" aria-label={person.name} title={person.name} style={{ background: person.color }}>
            {initialsOf(person.name)}
          </span>
        </li>
      ))}
      {more > 0 && (
        <li>
          <span className="presence-avatar more" role="img" aria-label={`${more} more`} title={people.slice(SHOWN).map((p) => p.name).join(', ')}>
            +{more}
          </span>
        </li>
      )}
    </ul>
  );
}
