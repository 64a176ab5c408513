import { useDocumentTitle } from '../hooks/use-document-title';
import { useSession } from '../hooks/use-session';
import { Link } from '../router';
import { AppHeader } from './app-header';

export function LandingPage() {
  useDocumentTitle('');
  const session = useSession();
  const signedIn = session.status === 'authenticated';
  return (
    <>
      <AppHeader />
      <main className="landing">
        <h1>Image Canvas</h1>
        <p className="lead">
          Lay out your images on a canvas, wire them into generation steps, describe what you want, and get a new image.
        </p>
        <ul className="features">
          <li>
            <strong>Drop images in.</strong> Pick files, drag them onto the canvas or paste them.
          </li>
          <li>
            <strong>Connect and describe.</strong> Feed one or more images into a generation node with a prompt.
          </li>
          <li>
            <strong>Pick up where you left off.</strong> Every change is saved as you go.
          </li>
        </ul>
        <Link className="button primary large" href={signedIn ? '/projects' : '/login'}>
          {signedIn ? 'Open your projects' : 'Sign in to start'}
        </Link>
      </main>
    </>
  );
}
