// The board's entry point: boot.ts starts the first requests at once, while the app's code (loaded as
// a chunk of its own) arrives and runs; then the app replaces the loading note.
import { boot } from './boot';
import './styles.css';

const started = boot();
import('./app')
  .then(({ mountApp }) => mountApp(started))
  .catch(() => {
    const root = document.getElementById('app')!;
    root.textContent = 'The board could not be loaded. Check the connection and reload the page.';
  });
