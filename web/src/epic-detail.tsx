// An epic opened in place (/epic/show/{id}): its name, description (Markdown, sanitised), label and the
// stories carrying that label, as the server's search answers them.
import { useEffect, useState } from 'preact/hooks';
import { problemText } from './api';
import { SearchResults } from './board';
import type { BoardStore } from './board-store';
import type { CardContext } from './story-card';
import { Markdown } from './story-detail';
import type { Epic, Story } from './types';

export function EpicDetail(props: {
  store: BoardStore;
  epicId: number;
  onClose(): void;
  onOpenStory(story: Pick<Story, 'id'>): void;
  cardProps: CardContext;
}) {
  const { store } = props;
  const [epic, setEpic] = useState<Epic | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    store.api
      .get<Epic>(`/projects/${store.projectId}/epics/${props.epicId}`)
      .then((answer) => setEpic(answer.data))
      .catch((failure) => setError(problemText(failure)));
  }, [props.epicId, store.generation]);
  return (
    <article class="epic-detail" aria-labelledby="epic-detail-title">
      <header class="detail-header">
        <h2 id="epic-detail-title">{epic ? `Epic: ${epic.name}` : 'Epic'}</h2>
        <button type="button" onClick={props.onClose}>
          Close
        </button>
      </header>
      {error ? <p role="alert">{error}</p> : null}
      {epic ? (
        <>
          {epic.description ? <Markdown text={epic.description} /> : <p class="empty">No description.</p>}
          {epic.label ? (
            <>
              <h3>Stories labelled {epic.label.name}</h3>
              <SearchResults store={store} query={`label:"${epic.label.name}" includedone:true`} cardProps={props.cardProps} />
            </>
          ) : null}
        </>
      ) : null}
    </article>
  );
}
