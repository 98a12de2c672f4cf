// The notifications bell: the unread count, the list (GET /my/notifications), a click marks one read
// and opens its story; "Mark all as read" (PUT /my/notifications/mark_read). Read again every 30 s while
// the tab is visible, and when opened.
import { useEffect, useRef, useState } from 'preact/hooks';
import { problemText } from './api';
import { moment } from './format';
import { navigate } from './routes';
import { useSession } from './session';
import type { NotificationItem } from './types';

const POLL_MS = 30_000;

export function NotificationsBell() {
  const { api } = useSession();
  const [items, setItems] = useState<NotificationItem[]>([]);
  const [open, setOpen] = useState(false);
  const [problem, setProblem] = useState<string | null>(null);
  const buttonRef = useRef<HTMLButtonElement>(null);
  const load = () =>
    api
      .get<NotificationItem[]>('/my/notifications')
      .then((answer) => {
        setItems(answer.data);
        setProblem(null);
      })
      .catch((error) => setProblem(problemText(error)));
  useEffect(() => {
    void load();
    const timer = setInterval(() => {
      if (document.visibilityState === 'visible') void load();
    }, POLL_MS);
    return () => clearInterval(timer);
  }, []);
  const unread = items.filter((item) => !item.read_at);
  const markRead = async (item: NotificationItem) => {
    setItems((shown) => shown.map((other) => (other.id === item.id ? { ...other, read_at: new Date().toISOString() } : other)));
    await api.put(`/my/notifications/${item.id}`, { read_at: Date.now() }).catch(() => undefined);
  };
  const markAll = async () => {
    const newest = items.reduce((max, item) => Math.max(max, item.id), 0);
    if (newest === 0) return;
    setItems((shown) => shown.map((item) => ({ ...item, read_at: item.read_at ?? new Date().toISOString() })));
    await api.put('/my/notifications/mark_read', { before: newest }).catch((error) => setProblem(problemText(error)));
  };
  const close = () => {
    setOpen(false);
    buttonRef.current?.focus();
  };
  return (
    <div class="notifications">
      <button
        ref={buttonRef}
        type="button"
        class="bell"
        aria-expanded={open}
        aria-controls="notification-list"
        aria-label={`Notifications: ${unread.length} unread`}
        onClick={() => {
          if (!open) void load();
          setOpen(!open);
        }}
      >
        <svg class="icon" viewBox="0 0 16 16" width="16" height="16" aria-hidden="true" focusable="false">
          <path fill="currentColor" d="M8 16a2 2 0 0 0 2-2H6a2 2 0 0 0 2 2Zm5-5V7a5 5 0 0 0-4-4.9V1a1 1 0 1 0-2 0v1.1A5 5 0 0 0 3 7v4l-1.5 1.5V13h13v-.5Z" />
        </svg>
        {unread.length > 0 ? <span class="badge">{unread.length}</span> : null}
      </button>
      {open ? (
        <div
          id="notification-list"
          class="notification-popover"
          role="dialog"
          aria-label="Notifications"
          onKeyDown={(event) => {
            if (event.key === 'Escape') close();
          }}
        >
          <div class="popover-header">
            <h2>Notifications</h2>
            <button type="button" onClick={markAll} disabled={unread.length === 0}>
              Mark all as read
            </button>
            <button type="button" onClick={close}>
              Close
            </button>
          </div>
          {problem ? <p role="alert">{problem}</p> : null}
          {items.length === 0 ? <p class="empty">No notifications in the last 10 days.</p> : null}
          <ul>
            {items.map((item) => (
              <li key={item.id} class={item.read_at ? 'read' : 'unread'}>
                <button
                  type="button"
                  class="notification"
                  onClick={() => {
                    void markRead(item);
                    if (item.story) navigate({ page: 'story', storyId: item.story.id });
                    else if (item.epic) navigate({ page: 'epic', epicId: item.epic.id });
                    setOpen(false);
                  }}
                >
                  <span class="message">{item.message}</span>
                  {item.story ? <span class="subject"> — {item.story.name}</span> : item.epic ? <span class="subject"> — {item.epic.name}</span> : null}
                  {item.context ? <span class="context">{item.context}</span> : null}
                  <time dateTime={item.created_at}>{moment(item.created_at)}</time>
                  {item.read_at ? null : <span class="visually-hidden"> (unread)</span>}
                </button>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  );
}
