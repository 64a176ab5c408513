// What the model said beside a generation node's current result — the offline engine says what it did, in words
// ("Offline image engine (not an AI model): applied grayscale. Not understood, so ignored: “tiger”.") — read from
// the node's generations (GET /api/projects/:id/generations?nodeId=, the record of the one whose image is current;
// the same read as the variants strip's, shared while both are in flight). Nothing when the model said nothing.
import { useNodeGenerations } from '../hooks/use-project-generations';
import './offline-engine.css';

interface Props {
  projectId: string;
  nodeId: string;
  /** The node's current image. */
  current: string;
}

export function ResultText({ projectId, nodeId, current }: Props) {
  const { state } = useNodeGenerations(projectId, nodeId, current);
  const text = state.items.find((g) => g.outputImageUrl === current)?.text;
  if (!text) return null;
  return (
    <p className="result-text small" data-testid="result-text">
      {text}
    </p>
  );
}
