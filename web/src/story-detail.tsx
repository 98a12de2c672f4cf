// A story opened in place: its attributes, description (Markdown, sanitised), tasks, blockers, reviews,
// comments with files and @mention completion, and its activity. Every save goes through the board's
// store, so it names the version shown and is told when someone else changed the project meanwhile.
import { useEffect, useRef, useState } from 'preact/hooks';
import { problemText, sameOrigin } from './api';
import type { BoardStore } from './board-store';
import { moment, points } from './format';
import { isEstimable, pointScale, stateActions, STATE_NAMES, STORY_TYPES } from './story-rules';
import type { Activity, Comment, FileAttachment, Person, ReviewType, StoryDetail as StoryData, StoryState } from './types';

const DETAIL_FIELDS = ':default,follower_ids,comment_ids,tasks,blockers,reviews,comments(:default,file_attachments)';
const STATES: StoryState[] = ['unscheduled', 'unstarted', 'planned', 'started', 'finished', 'delivered', 'accepted', 'rejected'];

/** The states a story can be set to: `planned` only where Current is planned by hand (or it is planned). */
function statesOf(project: { automatic_planning: boolean }, story: { current_state: StoryState }): StoryState[] {
  return STATES.filter((state) => state !== 'planned' || !project.automatic_planning || story.current_state === 'planned');
}

interface DetailProps {
  store: BoardStore;
  storyId: number;
  people: ReadonlyMap<number, Person>;
  canWrite: boolean;
  onClose(): void;
}

export function StoryDetail(props: DetailProps) {
  const { store, storyId } = props;
  const [story, setStory] = useState<StoryData | null>(null);
  const [error, setError] = useState<string | null>(null);
  const base = `/projects/${store.projectId}/stories/${storyId}`;
  const headingRef = useRef<HTMLHeadingElement>(null);

  useEffect(() => {
    let current = true;
    store.api
      .get<StoryData>(base, { query: { fields: DETAIL_FIELDS } })
      .then((answer) => {
        if (!current) return;
        setStory(answer.data);
        setError(null);
      })
      .catch((failure) => current && setError(problemText(failure)));
    return () => {
      current = false;
    };
  }, [storyId, store.generation]);
  useEffect(() => {
    if (story) headingRef.current?.focus();
  }, [story === null]);

  if (error) {
    return (
      <div class="story-detail">
        <p role="alert">{error}</p>
        <button type="button" onClick={props.onClose}>
          Close
        </button>
      </div>
    );
  }
  if (!story) return <p class="story-detail">Loading the story…</p>;

  const project = store.data!.project;
  /** A write on this story or its parts; errors are shown by the board's notice. */
  const save = async (send: (knownVersion: number) => Promise<unknown>) => {
    try {
      await store.write(send as never);
    } catch {
      // the notice says why
    }
  };
  const update = (body: Record<string, unknown>) => save((knownVersion) => store.api.put(base, body, { knownVersion }));
  /** Shows a change at once (a checkbox keeps its new state) until the story is read again after the save. */
  const shown = (change: Partial<StoryData>) => setStory({ ...story, ...change });
  const disabled = !props.canWrite;
  const members = [...props.people.values()];

  return (
    <article class="story-detail" aria-labelledby="story-detail-title">
      <header class="detail-header">
        <h2 id="story-detail-title" tabIndex={-1} ref={headingRef}>
          Story #{story.id}
        </h2>
        <button type="button" onClick={props.onClose}>
          Close
        </button>
      </header>
      <TextField label="Name" value={story.name} disabled={disabled} onSave={(name) => update({ name })} />
      <div class="detail-grid">
        <label>
          Type
          <select disabled={disabled} value={story.story_type} onChange={(event) => update({ story_type: (event.target as HTMLSelectElement).value })}>
            {STORY_TYPES.map((type) => (
              <option key={type} value={type}>
                {type}
              </option>
            ))}
          </select>
        </label>
        <label>
          Estimate
          <select
            disabled={disabled || !isEstimable(project, story)}
            value={story.estimate === undefined ? '' : String(story.estimate)}
            onChange={(event) => {
              const value = (event.target as HTMLSelectElement).value;
              void update({ estimate: value === '' ? null : Number(value) });
            }}
          >
            <option value="">Unestimated</option>
            {pointScale(project).map((value) => (
              <option key={value} value={String(value)}>
                {points(value)} points
              </option>
            ))}
          </select>
        </label>
        <label>
          State
          <select disabled={disabled} value={story.current_state} onChange={(event) => update({ current_state: (event.target as HTMLSelectElement).value })}>
            {statesOf(project, story).map((state) => (
              <option key={state} value={state}>
                {STATE_NAMES[state]}
              </option>
            ))}
          </select>
        </label>
        <label>
          Requester
          <select
            disabled={disabled}
            value={story.requested_by_id === undefined ? '' : String(story.requested_by_id)}
            onChange={(event) => update({ requested_by_id: Number((event.target as HTMLSelectElement).value) })}
          >
            {story.requested_by_id === undefined ? <option value="">Nobody</option> : null}
            {members.map((person) => (
              <option key={person.id} value={String(person.id)}>
                {person.name}
              </option>
            ))}
          </select>
        </label>
      </div>
      {props.canWrite ? (
        <div class="detail-actions">
          {stateActions(story).map((action) => (
            <button key={action.kind} type="button" class={`state-button ${action.kind}`} onClick={() => update({ current_state: action.state })}>
              {action.label}
            </button>
          ))}
        </div>
      ) : null}
      <fieldset class="owners" disabled={disabled}>
        <legend>Owners</legend>
        {members.map((person) => (
          <label key={person.id} class="checkbox">
            <input
              type="checkbox"
              checked={story.owner_ids.includes(person.id)}
              onChange={(event) => {
                const checked = (event.target as HTMLInputElement).checked;
                const owners = checked ? [...story.owner_ids, person.id] : story.owner_ids.filter((id) => id !== person.id);
                shown({ owner_ids: owners });
                void update({ owner_ids: owners });
              }}
            />
            {person.name}
          </label>
        ))}
      </fieldset>
      <LabelsField store={store} story={story} base={base} disabled={disabled} save={save} />
      <DescriptionField value={story.description ?? ''} disabled={disabled} onSave={(description) => update({ description })} />
      <TasksField store={store} story={story} base={base} disabled={disabled} save={save} shown={shown} />
      <BlockersField store={store} story={story} base={base} disabled={disabled} save={save} shown={shown} />
      <ReviewsField store={store} story={story} base={base} disabled={disabled} save={save} people={members} />
      <CommentsField store={store} story={story} base={base} disabled={disabled} save={save} people={props.people} />
      <StoryActivity store={store} base={base} />
      {props.canWrite ? (
        <button
          type="button"
          class="danger"
          onClick={() => {
            if (!confirm(`Delete the story "${story.name}"?`)) return;
            void save((knownVersion) => store.api.delete(base, { knownVersion })).then(props.onClose);
          }}
        >
          Delete story
        </button>
      ) : null}
    </article>
  );
}

type Save = (send: (knownVersion: number) => Promise<unknown>) => Promise<void>;

interface PartProps {
  store: BoardStore;
  story: StoryData;
  base: string;
  disabled: boolean;
  save: Save;
  /** Shows a change before the save's answer. */
  shown?(change: Partial<StoryData>): void;
}

function TextField(props: { label: string; value: string; disabled: boolean; onSave(value: string): void }) {
  const [value, setValue] = useState(props.value);
  useEffect(() => setValue(props.value), [props.value]);
  const commit = () => {
    if (value.trim() !== '' && value !== props.value) props.onSave(value);
  };
  return (
    <label class="text-field">
      {props.label}
      <input
        value={value}
        disabled={props.disabled}
        onInput={(event) => setValue((event.target as HTMLInputElement).value)}
        onBlur={commit}
        onKeyDown={(event) => {
          if (event.key === 'Enter') commit();
        }}
      />
    </label>
  );
}

function DescriptionField(props: { value: string; disabled: boolean; onSave(value: string): void }) {
  const [editing, setEditing] = useState(false);
  const [draft, setDraft] = useState(props.value);
  return (
    <section class="detail-section">
      <h3>Description</h3>
      {editing ? (
        <form
          onSubmit={(event) => {
            event.preventDefault();
            props.onSave(draft);
            setEditing(false);
          }}
        >
          <label for="story-description" class="visually-hidden">
            Description (Markdown)
          </label>
          <textarea id="story-description" rows={8} value={draft} onInput={(event) => setDraft((event.target as HTMLTextAreaElement).value)} />
          <button type="submit">Save description</button>
          <button type="button" onClick={() => setEditing(false)}>
            Cancel
          </button>
        </form>
      ) : (
        <>
          {props.value === '' ? <p class="empty">No description.</p> : <Markdown text={props.value} />}
          {props.disabled ? null : (
            <button
              type="button"
              onClick={() => {
                setDraft(props.value);
                setEditing(true);
              }}
            >
              Edit description
            </button>
          )}
        </>
      )}
    </section>
  );
}

/** The Markdown renderer (markdown.ts: marked and DOMPurify), a chunk loaded when a text is first shown. */
let markdown: typeof import('./markdown') | null = null;
let markdownLoading: Promise<void> | null = null;

/** Markdown through the sanitiser: the only HTML the board inserts that it did not build (plain text until the renderer is in). */
export function Markdown(props: { text: string }) {
  const [, setLoaded] = useState(markdown !== null);
  useEffect(() => {
    if (markdown) return;
    markdownLoading ??= import('./markdown').then((module) => {
      markdown = module;
    });
    markdownLoading.then(
      () => setLoaded(true),
      () => (markdownLoading = null),
    );
  }, []);
  if (!markdown) return <div class="markdown plain">{props.text}</div>;
  return <div class="markdown" dangerouslySetInnerHTML={{ __html: markdown.markdownHtml(props.text) }} />;
}

function LabelsField(props: PartProps) {
  const { store, story, base } = props;
  const labels = store.data?.labels ?? [];
  return (
    <section class="detail-section">
      <h3>Labels</h3>
      <ul class="chips">
        {story.labels.map((label) => (
          <li key={label.id} class="label-chip static">
            {label.name}
            {props.disabled ? null : (
              <button type="button" aria-label={`Remove label ${label.name}`} onClick={() => props.save((knownVersion) => store.api.delete(`${base}/labels/${label.id}`, { knownVersion }))}>
                ×
              </button>
            )}
          </li>
        ))}
      </ul>
      {props.disabled ? null : (
        <AddForm id="add-label" label="Add a label" button="Add label" list="project-labels" onAdd={(name) => props.save((knownVersion) => store.api.post(`${base}/labels`, { name }, { knownVersion }))}>
          <datalist id="project-labels">
            {labels.map((label) => (
              <option key={label.id} value={label.name} />
            ))}
          </datalist>
        </AddForm>
      )}
    </section>
  );
}

/** A one-line form that adds what was typed (trimmed, never empty) and empties itself. */
function AddForm(props: { id: string; label: string; button: string; list?: string; onAdd(text: string): void; children?: preact.ComponentChildren }) {
  const [text, setText] = useState('');
  const submit = (event: Event) => {
    event.preventDefault();
    const added = text.trim();
    if (added === '') return;
    setText('');
    props.onAdd(added);
  };
  return (
    <form class="inline-form" onSubmit={submit}>
      <label for={props.id}>{props.label}</label>
      <input id={props.id} list={props.list} value={text} onInput={(event) => setText((event.target as HTMLInputElement).value)} />
      {props.children}
      <button type="submit">{props.button}</button>
    </form>
  );
}

function TasksField(props: PartProps) {
  const { store, story, base } = props;
  const tasks = [...story.tasks].sort((a, b) => a.position - b.position);
  const put = (taskId: number, body: Record<string, unknown>) => props.save((knownVersion) => store.api.put(`${base}/tasks/${taskId}`, body, { knownVersion }));
  return (
    <section class="detail-section">
      <h3>Tasks</h3>
      <ol class="tasks">
        {tasks.map((task, index) => (
          <li key={task.id} class={task.complete ? 'task complete' : 'task'}>
            <label class="checkbox">
              <input
                type="checkbox"
                checked={task.complete}
                disabled={props.disabled}
                onChange={(event) => {
                  const complete = (event.target as HTMLInputElement).checked;
                  props.shown?.({ tasks: story.tasks.map((other) => (other.id === task.id ? { ...other, complete } : other)) });
                  void put(task.id, { complete });
                }}
              />
              {task.description}
            </label>
            {props.disabled ? null : (
              <span class="task-tools">
                <button type="button" disabled={index === 0} aria-label={`Move task "${task.description}" up`} onClick={() => put(task.id, { position: task.position - 1 })}>
                  ↑
                </button>
                <button type="button" disabled={index === tasks.length - 1} aria-label={`Move task "${task.description}" down`} onClick={() => put(task.id, { position: task.position + 1 })}>
                  ↓
                </button>
                <button type="button" aria-label={`Delete task "${task.description}"`} onClick={() => props.save((knownVersion) => store.api.delete(`${base}/tasks/${task.id}`, { knownVersion }))}>
                  ×
                </button>
              </span>
            )}
          </li>
        ))}
      </ol>
      {props.disabled ? null : (
        <AddForm id="add-task" label="New task" button="Add task" onAdd={(description) => props.save((knownVersion) => store.api.post(`${base}/tasks`, { description }, { knownVersion }))} />
      )}
    </section>
  );
}

function BlockersField(props: PartProps) {
  const { store, story, base } = props;
  return (
    <section class="detail-section">
      <h3>Blockers</h3>
      <ul class="blockers">
        {story.blockers.map((blocker) => (
          <li key={blocker.id}>
            <label class="checkbox">
              <input
                type="checkbox"
                checked={blocker.resolved}
                disabled={props.disabled}
                onChange={(event) => {
                  const resolved = (event.target as HTMLInputElement).checked;
                  props.shown?.({ blockers: story.blockers.map((other) => (other.id === blocker.id ? { ...other, resolved } : other)) });
                  void props.save((knownVersion) => store.api.put(`${base}/blockers/${blocker.id}`, { resolved }, { knownVersion }));
                }}
              />
              {blocker.description ?? `Blocker ${blocker.id}`} {blocker.resolved ? '(resolved)' : ''}
            </label>
          </li>
        ))}
      </ul>
      {props.disabled ? null : (
        <AddForm id="add-blocker" label="What blocks this story?" button="Add blocker" onAdd={(description) => props.save((knownVersion) => store.api.post(`${base}/blockers`, { description }, { knownVersion }))} />
      )}
    </section>
  );
}

function ReviewsField(props: PartProps & { people: Person[] }) {
  const { store, story, base } = props;
  const [types, setTypes] = useState<ReviewType[]>([]);
  const [typeId, setTypeId] = useState('');
  useEffect(() => {
    store.api
      .get<ReviewType[]>(`/projects/${store.projectId}/review_types`)
      .then((answer) => setTypes(answer.data))
      .catch(() => setTypes([]));
  }, [store.generation]);
  const typeName = (id: number) => types.find((type) => type.id === id)?.name ?? `Review type ${id}`;
  const put = (reviewId: number, body: Record<string, unknown>) => props.save((knownVersion) => store.api.put(`${base}/reviews/${reviewId}`, body, { knownVersion }));
  const visible = types.filter((type) => !type.hidden);
  return (
    <section class="detail-section">
      <h3>Reviews</h3>
      <ul class="reviews">
        {story.reviews.map((review) => (
          <li key={review.id} class="review">
            <span class="review-type">{typeName(review.review_type_id)}</span>
            <label>
              Reviewer
              <select
                disabled={props.disabled}
                value={review.reviewer_id === undefined ? '' : String(review.reviewer_id)}
                onChange={(event) => {
                  const value = (event.target as HTMLSelectElement).value;
                  void put(review.id, { reviewer_id: value === '' ? null : Number(value) });
                }}
              >
                <option value="">Nobody</option>
                {props.people.map((person) => (
                  <option key={person.id} value={String(person.id)}>
                    {person.name}
                  </option>
                ))}
              </select>
            </label>
            <label>
              Status
              <select disabled={props.disabled} value={review.status} onChange={(event) => put(review.id, { status: (event.target as HTMLSelectElement).value })}>
                <option value="unstarted">Unstarted</option>
                <option value="in_review">In review</option>
                <option value="pass">Pass</option>
                <option value="revise">Revise</option>
              </select>
            </label>
          </li>
        ))}
      </ul>
      {props.disabled || visible.length === 0 ? null : (
        <form
          class="inline-form"
          onSubmit={(event) => {
            event.preventDefault();
            if (typeId === '') return;
            void props.save((knownVersion) => store.api.post(`${base}/reviews`, { review_type_id: Number(typeId) }, { knownVersion }));
          }}
        >
          <label for="add-review">New review</label>
          <select id="add-review" value={typeId} onChange={(event) => setTypeId((event.target as HTMLSelectElement).value)}>
            <option value="">Choose a type</option>
            {visible.map((type) => (
              <option key={type.id} value={String(type.id)}>
                {type.name}
              </option>
            ))}
          </select>
          <button type="submit">Add review</button>
        </form>
      )}
    </section>
  );
}

function CommentsField(props: PartProps & { people: ReadonlyMap<number, Person> }) {
  const { store, story, base } = props;
  const [text, setText] = useState('');
  const [file, setFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const fileRef = useRef<HTMLInputElement>(null);
  const comments = [...story.comments].sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at) || a.id - b.id);
  const post = async (event: Event) => {
    event.preventDefault();
    if (text.trim() === '' && !file) return;
    setBusy(true);
    setProblem(null);
    try {
      await store.write(async (knownVersion) => {
        if (!file) return store.api.post(`${base}/comments`, { text }, { knownVersion });
        const upload = await store.api.upload<FileAttachment>(store.projectId, file, knownVersion);
        // The upload made a version of its own: the comment names that one.
        const comment = await store.api.post(`${base}/comments`, { text, file_attachments: [upload.data] }, { knownVersion: upload.version });
        return { ...comment, stale: upload.stale || comment.stale };
      });
      setText('');
      setFile(null);
      if (fileRef.current) fileRef.current.value = '';
    } catch (failure) {
      setProblem(problemText(failure));
    }
    setBusy(false);
  };
  return (
    <section class="detail-section">
      <h3>Comments</h3>
      <ol class="comments">
        {comments.map((comment) => (
          <CommentView key={comment.id} comment={comment} store={store} author={comment.person_id === undefined ? undefined : props.people.get(comment.person_id)} />
        ))}
      </ol>
      {props.disabled ? null : (
        <form class="comment-form" onSubmit={post}>
          <MentionTextarea id="new-comment" label="New comment (Markdown; @ mentions a member)" value={text} onInput={setText} people={[...props.people.values()]} />
          <label for="comment-file">Attach a file</label>
          <input id="comment-file" ref={fileRef} type="file" onChange={(event) => setFile((event.target as HTMLInputElement).files?.[0] ?? null)} />
          {problem ? <p role="alert">{problem}</p> : null}
          <button type="submit" disabled={busy}>
            Post comment
          </button>
        </form>
      )}
    </section>
  );
}

function CommentView(props: { comment: Comment; store: BoardStore; author: Person | undefined }) {
  const { comment } = props;
  return (
    <li class="comment">
      <p class="comment-meta">
        <strong>{props.author?.name ?? 'Someone'}</strong> · <time dateTime={comment.created_at}>{moment(comment.created_at)}</time>
      </p>
      {comment.text ? <Markdown text={comment.text} /> : null}
      {(comment.file_attachments ?? []).map((file) => (
        <Attachment key={file.id} file={file} store={props.store} />
      ))}
    </li>
  );
}

/** A file of a comment: fetched with the token (never in a URL), shown when it is an image, saved on demand. */
function Attachment(props: { file: FileAttachment; store: BoardStore }) {
  const { file, store } = props;
  const [preview, setPreview] = useState<string | null>(null);
  const image = /^image\/(png|jpeg|gif|webp)$/.test(file.content_type ?? '');
  // The server's thumbnail once made, else the image itself.
  const previewUrl = file.thumbnailable && file.thumbnail_url ? sameOrigin(file.thumbnail_url) : image && file.download_url ? `${sameOrigin(file.download_url)}?inline=true` : null;
  useEffect(() => {
    if (!previewUrl) return;
    let url: string | null = null;
    store.api
      .blob(previewUrl)
      .then((blob) => setPreview((url = URL.createObjectURL(blob))))
      .catch(() => undefined);
    return () => {
      if (url) URL.revokeObjectURL(url);
    };
  }, [previewUrl]);
  const download = async () => {
    if (!file.download_url) return;
    const blob = await store.api.blob(file.download_url);
    const link = document.createElement('a');
    link.href = URL.createObjectURL(blob);
    link.download = file.filename;
    link.click();
    setTimeout(() => URL.revokeObjectURL(link.href), 10_000);
  };
  return (
    <div class="attachment">
      {preview ? <img src={preview} alt={file.filename} /> : null}
      <button type="button" class="link" onClick={download}>
        Download {file.filename}
      </button>
      {file.size !== undefined ? <span class="file-size"> ({Math.ceil(file.size / 1024)} KB)</span> : null}
    </div>
  );
}

/** A textarea that offers the members' usernames after an @ (ArrowUp/Down choose, Enter or Tab takes). */
function MentionTextarea(props: { id: string; label: string; value: string; onInput(value: string): void; people: Person[] }) {
  const ref = useRef<HTMLTextAreaElement>(null);
  const [choices, setChoices] = useState<Person[]>([]);
  const [active, setActive] = useState(0);
  const word = () => {
    const area = ref.current;
    if (!area) return null;
    const before = area.value.slice(0, area.selectionStart);
    const match = /(^|\s)@([\w.-]*)$/.exec(before);
    return match ? { prefix: match[2]!, start: before.length - match[2]!.length } : null;
  };
  const suggest = () => {
    const current = word();
    if (!current) return setChoices([]);
    const prefix = current.prefix.toLowerCase();
    setChoices(props.people.filter((person) => person.username && (person.username.toLowerCase().startsWith(prefix) || person.name.toLowerCase().startsWith(prefix))).slice(0, 6));
    setActive(0);
  };
  const take = (person: Person) => {
    const area = ref.current;
    const current = word();
    if (!area || !current || !person.username) return;
    const text = `${area.value.slice(0, current.start)}${person.username} ${area.value.slice(area.selectionStart)}`;
    props.onInput(text);
    setChoices([]);
    const caret = current.start + person.username.length + 1;
    requestAnimationFrame(() => {
      area.focus();
      area.setSelectionRange(caret, caret);
    });
  };
  const listId = `${props.id}-mentions`;
  return (
    <div class="mention-field">
      <label for={props.id}>{props.label}</label>
      <textarea
        id={props.id}
        ref={ref}
        rows={3}
        value={props.value}
        aria-autocomplete="list"
        aria-controls={listId}
        aria-activedescendant={choices.length > 0 ? `${listId}-${active}` : undefined}
        onInput={(event) => {
          props.onInput((event.target as HTMLTextAreaElement).value);
          suggest();
        }}
        onKeyDown={(event) => {
          if (choices.length === 0) return;
          if (event.key === 'ArrowDown' || event.key === 'ArrowUp') {
            event.preventDefault();
            setActive((index) => (index + (event.key === 'ArrowDown' ? 1 : choices.length - 1)) % choices.length);
          } else if (event.key === 'Enter' || event.key === 'Tab') {
            event.preventDefault();
            take(choices[active]!);
          } else if (event.key === 'Escape') {
            setChoices([]);
          }
        }}
      />
      <ul id={listId} role="listbox" class="mentions" hidden={choices.length === 0} aria-label="Members to mention">
        {choices.map((person, index) => (
          <li key={person.id} id={`${listId}-${index}`} role="option" aria-selected={index === active} onMouseDown={(event) => (event.preventDefault(), take(person))}>
            @{person.username} — {person.name}
          </li>
        ))}
      </ul>
    </div>
  );
}

function StoryActivity(props: { store: BoardStore; base: string }) {
  const { store } = props;
  const [items, setItems] = useState<Activity[] | null>(null);
  useEffect(() => {
    store.api
      .get<Activity[]>(`${props.base}/activity`, { query: { limit: 50 } })
      .then((answer) => setItems(answer.data))
      .catch(() => setItems([]));
  }, [props.base, store.generation]);
  return (
    <section class="detail-section">
      <h3>Activity</h3>
      {items === null ? (
        <p>Loading…</p>
      ) : (
        <ol class="activity">
          {items.map((item) => (
            <li key={item.guid}>
              <time dateTime={item.occurred_at}>{moment(item.occurred_at)}</time> {item.message}
            </li>
          ))}
        </ol>
      )}
    </section>
  );
}
