// A project's board in Tracker's layout: Current, Backlog (iterations as the server planned them),
// Icebox, Done (collapsed, paged back by iteration), Epics, My work, search results and the open story
// or epic, each panel scrolling on its own and each shown or hidden from the panel bar. Drag and drop
// (SortableJS) and Alt+Up / Alt+Down move stories within and between Current, Backlog and Icebox.
import Sortable from 'sortablejs';
import { useEffect, useMemo, useRef, useState } from 'preact/hooks';
import { problemText } from './api';
import { BoardStore, boardOrder, boardStoreFor, withStoryAt, type BoardData } from './board-store';
import { iterationDates, points } from './format';
import { followProject } from './live';
import { keyboardMove, type Panel } from './placement';
import { navigate } from './routes';
import { useSession } from './session';
import { MOVE_HINT_ID, StoryCard, type CardActions, type CardContext } from './story-card';
import { pure } from './pure';
import { StoryDetail } from './story-detail';
import { EpicDetail } from './epic-detail';
import { MembersPanel } from './members';
import type { Epic, Iteration, Person, SearchResult, Story } from './types';
import { CARD_FIELDS } from './board-store';

type PanelId = 'current' | 'backlog' | 'icebox' | 'done' | 'epics' | 'mywork' | 'search' | 'members';

const PANEL_NAMES: Record<PanelId, string> = {
  current: 'Current',
  backlog: 'Backlog',
  icebox: 'Icebox',
  done: 'Done',
  epics: 'Epics',
  mywork: 'My work',
  search: 'Search',
  members: 'Members',
};
const LIVE_TEXT: Record<BoardStore['live'], string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Offline: reconnecting',
  unavailable: 'No live updates',
};
const DEFAULT_PANELS: PanelId[] = ['current', 'backlog', 'icebox'];
/** Done iterations read per page, going back. */
const DONE_PAGE = 5;

export interface BoardProps {
  projectId: number;
  /** A story or epic to open (the board was opened at /story/show/{id} or /epic/show/{id}). */
  openStoryId: number | null;
  openEpicId: number | null;
  /** A search asked from the header. */
  search: { query: string; serial: number } | null;
}

export function Board(props: BoardProps) {
  const session = useSession();
  const store = useMemo(() => boardStoreFor(session.api, props.projectId), [props.projectId]);
  const [, setTick] = useState(0);
  useEffect(() => {
    const unsubscribe = store.subscribe(() => setTick((tick) => tick + 1));
    if (store.data) setTick((tick) => tick + 1);
    void store.start();
    return () => {
      unsubscribe();
      store.close();
    };
  }, [store]);

  // The live stream starts once the first data is in (it resumes after the version shown).
  const loaded = store.data !== null;
  useEffect(() => {
    const token = session.api.currentToken();
    if (!loaded || !token) return;
    return followProject({
      projectId: props.projectId,
      token,
      since: store.version,
      onActivity: (activity, version) => store.applyActivity(activity, version),
      onStatus: (status) => store.setLive(status),
    });
  }, [loaded, store]);

  const [panels, setPanels] = useState<Set<PanelId>>(() => new Set(savedPanels(props.projectId)));
  const [searchQuery, setSearchQuery] = useState<string | null>(null);
  const show = (panel: PanelId, visible = true) =>
    setPanels((current) => {
      const next = new Set(current);
      if (visible) next.add(panel);
      else next.delete(panel);
      savePanels(props.projectId, next);
      return next;
    });
  useEffect(() => {
    if (!props.search) return;
    setSearchQuery(props.search.query);
    show('search');
  }, [props.search?.serial]);

  const data = store.data;
  useEffect(() => {
    if (data) document.title = `${data.project.name} — Storyline`;
  }, [data?.project.name]);
  useEffect(() => {
    if (!data) return;
    requestAnimationFrame(() => performance.mark('storyline:board-interactive'));
  }, [loaded]);

  // What every card shares, kept the same object between renders so unchanged cards are not rendered again.
  const members = data?.members;
  const people = useMemo(() => new Map<number, Person>((members ?? []).map((membership) => [membership.person.id, membership.person])), [members]);
  const myRole = members?.find((membership) => membership.person.id === session.me.id)?.role ?? null;
  const canWrite = myRole === 'owner' || myRole === 'member';
  const openStory = (story: Pick<Story, 'id'>) => navigate({ page: 'story', storyId: story.id, projectId: props.projectId });
  const actions = useMemo<CardActions>(
    () => ({
      open: openStory,
      update: (story, body) => void store.updateStory(story.id, body).catch(() => undefined),
      filterByLabel: (name) => {
        setSearchQuery(`label:"${name}"`);
        show('search');
      },
      moveByKeyboard: (story, delta) => {
        const shown = store.data;
        if (!shown) return;
        const currentNumber = shown.project.current_iteration_number;
        const move = keyboardMove(boardOrder(shown, currentNumber), story.id, delta);
        if (!move) return;
        void store.moveStory(story.id, move, (before) => placedBeside(before, story.id, move.below, move.above, move.to, currentNumber)).then(() => {
          requestAnimationFrame(() => (document.querySelector(`[data-story-id="${story.id}"] .story-name`) as HTMLElement | null)?.focus());
        });
      },
    }),
    [store],
  );
  const project = data?.project;
  const cardProps = useMemo<CardContext | null>(() => (project ? { project, people, actions, writable: canWrite } : null), [project, people, actions, canWrite]);
  // A long Backlog or Icebox shows its first cards at once and the rest a slice per frame after.
  const scheduledCards = data ? data.iterations.reduce((sum, iteration) => sum + iteration.stories.length, 0) : 0;
  const backlogShown = useCardsShown(store, scheduledCards);
  const iceboxShown = useCardsShown(store, data?.icebox.length ?? 0);

  if (!data || !cardProps) {
    return (
      <main id="main" class="board-loading">
        {store.loadError ? <p role="alert">The board could not be loaded: {store.loadError}</p> : <p>Loading the board…</p>}
      </main>
    );
  }

  const currentNumber = data.project.current_iteration_number;
  const current = data.iterations.find((iteration) => iteration.number === currentNumber) ?? null;
  const backlog = data.iterations.filter((iteration) => iteration.number !== currentNumber);
  const detailOpen = props.openStoryId !== null || props.openEpicId !== null;
  const closeDetail = () => navigate({ page: 'project', projectId: props.projectId });

  return (
    <main id="main" class="board">
      <div class="board-bar">
        <h1 class="project-name">{data.project.name}</h1>
        <nav class="panel-toggles" aria-label="Panels">
          {(Object.keys(PANEL_NAMES) as PanelId[]).map((panel) => (
            <button key={panel} type="button" aria-pressed={panels.has(panel)} onClick={() => show(panel, !panels.has(panel))}>
              {PANEL_NAMES[panel]}
            </button>
          ))}
        </nav>
        <span class={`live-status ${store.live}`} role="status">
          {LIVE_TEXT[store.live]}
        </span>
      </div>
      {store.notice ? (
        <div class={`notice ${store.notice.kind}`} role="alert">
          <p>{store.notice.text}</p>
          <button type="button" onClick={() => store.dismissNotice()}>
            Dismiss
          </button>
        </div>
      ) : null}
      <p id={MOVE_HINT_ID} class="visually-hidden">
        Alt+Up or Alt+Down moves the story; drag a card to move it between panels.
      </p>
      <div class="panels">
        {detailOpen ? (
          <section class="panel detail-panel" aria-label={props.openStoryId !== null ? 'Story' : 'Epic'}>
            {props.openStoryId !== null ? (
              <StoryDetail key={props.openStoryId} store={store} storyId={props.openStoryId} people={people} canWrite={canWrite} onClose={closeDetail} />
            ) : (
              <EpicDetail key={props.openEpicId} store={store} epicId={props.openEpicId!} onClose={closeDetail} onOpenStory={openStory} cardProps={cardProps} />
            )}
          </section>
        ) : null}
        {panels.has('current') ? (
          <PanelFrame id="current" title="Current" onHide={() => show('current', false)} subtitle={current ? iterationSummary(current, data) : null}>
            <StoryList panel="current" iteration={current?.number ?? currentNumber} stories={current?.stories ?? []} cardProps={cardProps} store={store} currentNumber={currentNumber} selected={props.openStoryId} />
          </PanelFrame>
        ) : null}
        {panels.has('backlog') ? (
          <PanelFrame id="backlog" title="Backlog" onHide={() => show('backlog', false)}>
            {canWrite ? <AddStory store={store} where="backlog" firstId={backlog[0]?.stories[0]?.id ?? null} /> : null}
            {backlog.length === 0 ? <p class="empty">The Backlog is empty.</p> : null}
            {firstIterations(backlog, backlogShown).map((iteration) => (
              <div key={iteration.number} class="iteration">
                <h3 class="iteration-header">{iterationSummary(iteration, data)}</h3>
                <StoryList panel="backlog" iteration={iteration.number} stories={iteration.stories} cardProps={cardProps} store={store} currentNumber={currentNumber} selected={props.openStoryId} />
              </div>
            ))}
          </PanelFrame>
        ) : null}
        {panels.has('icebox') ? (
          <PanelFrame id="icebox" title="Icebox" onHide={() => show('icebox', false)} subtitle={`${data.icebox.length} stories`}>
            {canWrite ? <AddStory store={store} where="icebox" firstId={null} /> : null}
            <StoryList panel="icebox" iteration={null} stories={data.icebox.length > iceboxShown ? data.icebox.slice(0, iceboxShown) : data.icebox} cardProps={cardProps} store={store} currentNumber={currentNumber} selected={props.openStoryId} />
          </PanelFrame>
        ) : null}
        {panels.has('done') ? (
          <PanelFrame id="done" title="Done" onHide={() => show('done', false)}>
            <DonePanel store={store} cardProps={cardProps} />
          </PanelFrame>
        ) : null}
        {panels.has('epics') ? (
          <PanelFrame id="epics" title="Epics" onHide={() => show('epics', false)}>
            <EpicsList epics={data.epics} onOpen={(epic) => navigate({ page: 'epic', epicId: epic.id, projectId: props.projectId })} onLabel={actions.filterByLabel} />
          </PanelFrame>
        ) : null}
        {panels.has('mywork') ? (
          <PanelFrame id="mywork" title="My work" onHide={() => show('mywork', false)}>
            <SearchResults store={store} query={`mywork:${session.me.id}`} cardProps={cardProps} />
          </PanelFrame>
        ) : null}
        {panels.has('search') ? (
          <PanelFrame id="search" title="Search" onHide={() => show('search', false)} subtitle={searchQuery}>
            {searchQuery ? <SearchResults store={store} query={searchQuery} cardProps={cardProps} /> : <p class="empty">Search from the box at the top, or click a label.</p>}
          </PanelFrame>
        ) : null}
        {panels.has('members') ? (
          <PanelFrame id="members" title="Members" onHide={() => show('members', false)}>
            <MembersPanel store={store} isOwner={myRole === 'owner'} />
          </PanelFrame>
        ) : null}
      </div>
    </main>
  );
}

/**
 * Cards a long list shows in the first frame with data, and how many more each frame after: the board
 * is shown and answers input at once, and no frame spends long making cards below the fold.
 */
const FIRST_CARDS = 30;
const CARDS_PER_FRAME = 40;

/**
 * How many cards of a list of `total` to show now: FIRST_CARDS, then CARDS_PER_FRAME more after each
 * paint; paused while a card is dragged (a list rendered again would undo the drag), going on after.
 */
function useCardsShown(store: BoardStore, total: number): number {
  const [shown, setShown] = useState(FIRST_CARDS);
  const loaded = store.data !== null;
  useEffect(() => {
    if (!loaded || shown >= total) return;
    let timer: ReturnType<typeof setTimeout> | null = null;
    const frame = requestAnimationFrame(() => (timer = setTimeout(() => setShown((count) => (store.dragging ? count : count + CARDS_PER_FRAME)), 0)));
    return () => {
      cancelAnimationFrame(frame);
      if (timer) clearTimeout(timer);
    };
  }, [loaded, shown, total, store.dragsEnded]);
  return shown;
}

/** The Backlog's first iterations holding `cards` stories (the one that reaches it included). */
function firstIterations(iterations: Iteration[], cards: number): Iteration[] {
  let counted = 0;
  const first: Iteration[] = [];
  for (const iteration of iterations) {
    if (counted >= cards) break;
    first.push(iteration);
    counted += iteration.stories.length;
  }
  return first.length === iterations.length ? iterations : first;
}

function iterationSummary(iteration: Iteration, data: BoardData): string {
  const velocity = iteration.velocity ?? data.project.current_velocity;
  const planned = points(iteration.points);
  return `Iteration ${iteration.number} · ${iterationDates(iteration.start, iteration.finish, data.project.time_zone?.offset)} · ${planned} of ${points(velocity)} points`;
}

function PanelFrame(props: { id: PanelId; title: string; subtitle?: string | null; onHide(): void; children: preact.ComponentChildren }) {
  const headingId = `panel-${props.id}-title`;
  return (
    <section class={`panel panel-${props.id}`} aria-labelledby={headingId} data-panel={props.id}>
      <header class="panel-header">
        <h2 id={headingId}>{props.title}</h2>
        {props.subtitle ? <span class="panel-subtitle">{props.subtitle}</span> : null}
        <button type="button" class="hide-panel" onClick={props.onHide} aria-label={`Hide ${props.title}`}>
          ×
        </button>
      </header>
      <div class="panel-body">{props.children}</div>
    </section>
  );
}

interface ListProps {
  panel: Panel;
  /** The iteration the list shows (null: the Icebox). */
  iteration: number | null;
  stories: Story[];
  cardProps: CardContext;
  store: BoardStore;
  currentNumber: number;
  selected: number | null;
}

/** One list of cards, a SortableJS list in the board's one drag group. */
const StoryList = pure(function StoryList(props: ListProps) {
  const listRef = useRef<HTMLOListElement>(null);
  const latest = useRef(props);
  latest.current = props;
  useEffect(() => {
    if (!listRef.current || !props.cardProps.writable) return;
    const sortable = Sortable.create(listRef.current, {
      group: 'board',
      draggable: '.card.draggable',
      filter: '.state-accepted',
      animation: 0,
      forceFallback: true,
      fallbackOnBody: true,
      onStart() {
        latest.current.store.beginDrag();
      },
      onEnd(event) {
        const { store } = latest.current;
        const item = event.item as HTMLElement;
        const storyId = Number(item.dataset['storyId']);
        const to = (event.to as HTMLElement).dataset['panel'] as Panel;
        const from = (event.from as HTMLElement).dataset['panel'] as Panel;
        const targetIteration = (event.to as HTMLElement).dataset['iteration'];
        const newIndex = event.newDraggableIndex ?? event.newIndex ?? 0;
        const { above, below } = domNeighbours(item, to);
        // Preact owns the DOM: put the card back and show the move through the data instead.
        event.from.insertBefore(item, event.from.children[event.oldIndex ?? 0] ?? null);
        store.endDrag();
        if (event.from === event.to && event.oldIndex === event.newIndex) return;
        performance.mark('storyline:drop');
        const target = to === 'icebox' ? ('icebox' as const) : { iteration: Number(targetIteration) };
        void store.moveStory(storyId, { from, to, above, below }, (data) => withStoryAt(data, storyId, target, newIndex));
        // Before the next frame paints: where the card is shown then (the benchmark reads it).
        requestAnimationFrame(() => {
          const list = document.querySelector(to === 'icebox' ? '.story-list[data-panel="icebox"]' : `.story-list[data-iteration="${targetIteration}"]`);
          const shown = list ? [...list.querySelectorAll(':scope > .card')].findIndex((card) => (card as HTMLElement).dataset['storyId'] === String(storyId)) : -1;
          performance.mark('storyline:drop-shown', { detail: { storyId, expected: newIndex, shown } });
        });
      },
    });
    return () => {
      sortable.destroy();
      latest.current.store.endDrag();
    };
  }, [props.cardProps.writable]);
  return (
    <ol
      ref={listRef}
      class="story-list"
      data-panel={props.panel}
      data-iteration={props.iteration ?? undefined}
      aria-label={props.iteration === null ? 'Icebox stories' : `Iteration ${props.iteration} stories`}
    >
      {props.stories.map((story) => (
        <StoryCard key={story.id} story={story} {...props.cardProps} draggable={props.cardProps.writable && story.current_state !== 'accepted'} selected={props.selected === story.id} />
      ))}
    </ol>
  );
});

/** The stories shown just above and below a dropped card in its part of the board (Current + Backlog, or Icebox). */
function domNeighbours(item: HTMLElement, panel: Panel): { above: number | null; below: number | null } {
  const part = panel === 'icebox' ? '.story-list[data-panel="icebox"]' : '.story-list[data-panel="current"], .story-list[data-panel="backlog"]';
  const cards = [...document.querySelectorAll<HTMLElement>(part)].flatMap((list) => [...list.querySelectorAll<HTMLElement>(':scope > .card')]);
  const index = cards.indexOf(item);
  const id = (card: HTMLElement | undefined) => (card ? Number(card.dataset['storyId']) : null);
  // Accepted stories keep their place by acceptance time: a neighbour among them would say nothing.
  let above = index - 1;
  while (above >= 0 && cards[above]!.classList.contains('state-accepted')) above -= 1;
  return { above: id(cards[above]), below: id(cards[index + 1]) };
}

/** The data with a story moved next to a neighbour (keyboard moves): beside `below`, else after `above`, else at an edge. */
function placedBeside(data: BoardData, storyId: number, below: number | null, above: number | null, to: Panel, currentNumber: number): BoardData {
  const without = withStoryAt(data, storyId, 'icebox', 0);
  const lists: Array<{ target: { iteration: number } | 'icebox'; stories: Story[] }> = [
    ...without.iterations.map((iteration) => ({ target: { iteration: iteration.number }, stories: iteration.stories.filter((story) => story.id !== storyId) })),
    { target: 'icebox' as const, stories: without.icebox.filter((story) => story.id !== storyId) },
  ];
  for (const list of lists) {
    const belowAt = below === null ? -1 : list.stories.findIndex((story) => story.id === below);
    if (belowAt !== -1) return withStoryAt(data, storyId, list.target, belowAt);
    const aboveAt = above === null ? -1 : list.stories.findIndex((story) => story.id === above);
    if (aboveAt !== -1) return withStoryAt(data, storyId, list.target, aboveAt + 1);
  }
  if (to === 'icebox') return withStoryAt(data, storyId, 'icebox', 0);
  return withStoryAt(data, storyId, { iteration: currentNumber }, 0);
}

function AddStory(props: { store: BoardStore; where: 'backlog' | 'icebox'; firstId: number | null }) {
  const [open, setOpen] = useState(false);
  const [name, setName] = useState('');
  const [type, setType] = useState('feature');
  const [busy, setBusy] = useState(false);
  const inputId = `add-story-${props.where}`;
  if (!open) {
    return (
      <button type="button" class="add-story" onClick={() => setOpen(true)}>
        Add story
      </button>
    );
  }
  const submit = async (event: Event) => {
    event.preventDefault();
    if (name.trim() === '') return;
    setBusy(true);
    const body: Record<string, unknown> = { name: name.trim(), story_type: type };
    if (props.where === 'backlog') {
      body['current_state'] = 'unstarted';
      if (props.firstId !== null) body['before_id'] = props.firstId;
    }
    try {
      await props.store.createStory(body);
      setName('');
      setOpen(false);
    } catch {
      // the notice says why
    }
    setBusy(false);
  };
  return (
    <form class="add-story-form" onSubmit={submit}>
      <label for={inputId}>New story in the {props.where === 'backlog' ? 'Backlog' : 'Icebox'}</label>
      <input id={inputId} value={name} onInput={(event) => setName((event.target as HTMLInputElement).value)} autoFocus required maxLength={5000} />
      <label for={`${inputId}-type`}>Type</label>
      <select id={`${inputId}-type`} value={type} onChange={(event) => setType((event.target as HTMLSelectElement).value)}>
        <option value="feature">Feature</option>
        <option value="bug">Bug</option>
        <option value="chore">Chore</option>
        <option value="release">Release</option>
      </select>
      <button type="submit" disabled={busy}>
        Save
      </button>
      <button type="button" onClick={() => setOpen(false)}>
        Cancel
      </button>
    </form>
  );
}

function DonePanel(props: { store: BoardStore; cardProps: ListProps['cardProps'] }) {
  const { store } = props;
  const [iterations, setIterations] = useState<Iteration[]>([]);
  const [total, setTotal] = useState<number | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const loadBack = async (count: number) => {
    setBusy(true);
    try {
      const answer = await store.api.get<Iteration[]>(`/projects/${store.projectId}/iterations`, {
        query: { scope: 'done', offset: -count, limit: DONE_PAGE, fields: `:default,velocity,points,accepted_points,stories(${CARD_FIELDS})` },
      });
      setTotal(answer.total);
      setIterations((shown) => {
        const known = new Set(shown.map((iteration) => iteration.number));
        return [...answer.data.filter((iteration) => !known.has(iteration.number)), ...shown].sort((a, b) => a.number - b.number);
      });
      setError(null);
    } catch (failure) {
      setError(problemText(failure));
    }
    setBusy(false);
  };
  useEffect(() => {
    setIterations([]);
    void loadBack(DONE_PAGE);
  }, [store]);
  const olderLeft = total !== null && iterations.length < total;
  return (
    <div>
      {error ? <p role="alert">{error}</p> : null}
      {olderLeft ? (
        <button type="button" class="older" disabled={busy} onClick={() => loadBack(Math.min(iterations.length + DONE_PAGE, total ?? 0))}>
          Show older iterations ({(total ?? 0) - iterations.length} more)
        </button>
      ) : null}
      {total === 0 ? <p class="empty">No iteration is done yet.</p> : null}
      {iterations.map((iteration) => (
        <details key={iteration.number} class="iteration done-iteration">
          <summary>
            Iteration {iteration.number} · {iterationDates(iteration.start, iteration.finish, undefined)} · {points(iteration.accepted_points ?? iteration.points)} points
          </summary>
          <ol class="story-list">
            {iteration.stories.map((story) => (
              <StoryCard key={story.id} story={story} {...props.cardProps} draggable={false} selected={false} />
            ))}
          </ol>
        </details>
      ))}
    </div>
  );
}

function EpicsList(props: { epics: Epic[]; onOpen(epic: Epic): void; onLabel(name: string): void }) {
  if (props.epics.length === 0) return <p class="empty">No epics yet.</p>;
  return (
    <ul class="epic-list">
      {props.epics.map((epic) => (
        <li key={epic.id} class="epic">
          <button type="button" class="epic-name" onClick={() => props.onOpen(epic)}>
            {epic.name}
          </button>
          {epic.label ? (
            <button type="button" class="label-chip" onClick={() => props.onLabel(epic.label!.name)} aria-label={`Stories labelled ${epic.label.name}`}>
              {epic.label.name}
            </button>
          ) : null}
        </li>
      ))}
    </ul>
  );
}

/** Stories a search answers (Tracker's grammar; the server searches), read again when the project changes. */
export function SearchResults(props: { store: BoardStore; query: string; cardProps: ListProps['cardProps'] }) {
  const { store } = props;
  const [result, setResult] = useState<SearchResult | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let current = true;
    store.api
      .get<SearchResult>(`/projects/${store.projectId}/search`, { query: { query: props.query, fields: `:default,stories(stories(${CARD_FIELDS}),total_hits,total_points,total_hits_with_done)` } })
      .then((answer) => {
        if (!current) return;
        setResult(answer.data);
        setError(null);
      })
      .catch((failure) => current && setError(problemText(failure)));
    return () => {
      current = false;
    };
  }, [props.query, store.generation]);
  if (error) return <p role="alert">{error}</p>;
  if (!result) return <p>Searching…</p>;
  const stories = result.stories.stories;
  return (
    <div class="search-results">
      <p class="search-summary" role="status">
        {result.stories.total_hits} {result.stories.total_hits === 1 ? 'story' : 'stories'}, {points(result.stories.total_points)} points
      </p>
      <ol class="story-list">
        {stories.map((story) => (
          <StoryCard key={story.id} story={story} {...props.cardProps} draggable={false} selected={false} />
        ))}
      </ol>
    </div>
  );
}

function savedPanels(projectId: number): PanelId[] {
  try {
    const saved = JSON.parse(localStorage.getItem(`storyline.panels.${projectId}`) ?? 'null') as unknown;
    if (Array.isArray(saved)) return saved.filter((panel): panel is PanelId => typeof panel === 'string' && panel in PANEL_NAMES && panel !== 'search');
  } catch {
    // the defaults
  }
  return DEFAULT_PANELS;
}

function savePanels(projectId: number, panels: Set<PanelId>): void {
  try {
    localStorage.setItem(`storyline.panels.${projectId}`, JSON.stringify([...panels]));
  } catch {
    // not kept
  }
}
