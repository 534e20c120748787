// Operations console: plain DOM, no framework, no external resources. Every number comes from the
// admin API (/v1/admin/...) with the admin key kept in this tab's sessionStorage.
'use strict';

const KEY = 'animal-data-admin-key';
const $ = (selector) => document.querySelector(selector);
let refreshTimer = null;

const api = async (path, options = {}) => {
  const response = await fetch(`/v1${path}`, {
    ...options,
    headers: { 'x-api-key': sessionStorage.getItem(KEY) ?? '', ...(options.body ? { 'content-type': 'application/json' } : {}) },
  });
  const body = await response.json().catch(() => null);
  if (!response.ok) {
    const error = new Error(body?.message ?? `HTTP ${response.status}`);
    error.status = response.status;
    throw error;
  }
  return body;
};

const cell = (text, className) => {
  const td = document.createElement('td');
  td.textContent = text ?? '';
  if (className) td.className = className;
  return td;
};

const fill = (table, rows) => {
  const body = table.querySelector('tbody');
  body.replaceChildren(...rows);
};

const row = (cells, attributes = {}) => {
  const tr = document.createElement('tr');
  for (const [name, value] of Object.entries(attributes)) tr.setAttribute(name, value);
  tr.append(...cells);
  return tr;
};

const streamLink = (stream) => {
  const td = document.createElement('td');
  const link = document.createElement('a');
  link.textContent = stream;
  link.dataset.stream = stream;
  link.addEventListener('click', () => openStream(stream));
  td.append(link);
  return td;
};

const renderStatus = (status) => {
  $('#head').textContent = `head ${status.head_position} · ${Object.entries(status.adapters).map(([port, kind]) => `${port}: ${kind}`).join(' · ')}`;
  fill(
    $('#projections'),
    status.projections.map((p) =>
      row([cell(p.name), cell(p.checkpoint, 'num'), cell(String(p.lag_events), 'num'), cell(p.lag_seconds.toFixed(1), 'num')], {
        'data-projection': p.name,
        class: p.lag_events > 0 ? 'behind' : '',
      }),
    ),
  );
  fill(
    $('#groups'),
    status.consumer_groups.map((g) => row([cell(g.group), cell(g.lag_messages === null ? 'elsewhere' : String(g.lag_messages), 'num')], { 'data-group': g.group })),
  );
  const w = status.webhooks;
  $('#webhook-counts').textContent =
    `endpoints: ${w.endpoints.enabled} enabled, ${w.endpoints.disabled} disabled · deliveries: ` +
    Object.entries(w.deliveries).map(([name, count]) => `${count} ${name}`).join(', ');
  fill($('#disabled-webhooks'), w.disabled.map((d) => row([streamLink(`webhook-${d.id}`), cell(d.account_id), cell(d.url), cell(d.disabled_at)])));
  fill(
    $('#deliveries'),
    w.recent_deliveries.map((d) => row([streamLink(`webhookdelivery-${d.id}`), cell(d.event_type), cell(d.status), cell(String(d.attempts), 'num'), cell(d.updated_at)])),
  );
  const select = $('#verify-projection');
  if (select.options.length === 0) {
    for (const name of [...status.projections.map((p) => p.name).filter((name) => name !== 'relay'), 'all']) select.append(new Option(name, name));
  }
};

const renderEvents = (page) => {
  fill(
    $('#events'),
    page.events.map((e) => row([cell(e.position, 'num'), cell(e.type), streamLink(e.stream), cell(e.metadata.actor), cell(e.metadata.timestamp)], { 'data-position': e.position })),
  );
};

const refresh = async () => {
  const [status, events] = await Promise.all([api('/admin/ops/status'), api('/admin/events?order=desc&limit=20')]);
  renderStatus(status);
  renderEvents(events);
};

const openStream = async (stream) => {
  const page = await api(`/admin/streams/${encodeURIComponent(stream)}?limit=200`);
  $('#stream-view').hidden = false;
  $('#stream-name').textContent = stream;
  $('#stream-view').dataset.stream = stream;
  fill(
    $('#stream-events'),
    page.events.map((e) => row([cell(e.revision, 'num'), cell(e.position, 'num'), cell(e.type), cell(e.metadata.actor), cell(e.metadata.request_id), cell(e.metadata.timestamp)])),
  );
  $('#state-position').value = '';
  await showState();
  $('#stream-view').scrollIntoView({ block: 'start' });
};

const showState = async () => {
  const stream = $('#stream-view').dataset.stream;
  const at = $('#state-position').value.trim();
  try {
    const state = await api(`/admin/streams/${encodeURIComponent(stream)}/state${at ? `?at_position=${encodeURIComponent(at)}` : ''}`);
    $('#state-summary').textContent = `${state.events_folded} events folded by the ${state.category} decider · position ${state.position ?? '—'} · ${state.timestamp ?? ''}`;
    $('#state').textContent = JSON.stringify(state.state, null, 2);
  } catch (error) {
    $('#state-summary').textContent = error.message;
    $('#state').textContent = '';
  }
};

const pollOperation = async (id) => {
  const operation = await api(`/admin/operations/${id}`);
  const progress = $('#verify-progress');
  progress.hidden = false;
  progress.value = operation.progress.percent;
  const where = operation.progress.current ? ` · ${operation.progress.current}` : '';
  $('#verify-status').textContent = `${operation.status} · ${operation.progress.percent}%${where} (${operation.progress.done}/${operation.progress.total})`;
  $('#verify-status').dataset.status = operation.status;
  const results = $('#verify-results');
  results.hidden = operation.results.length === 0;
  fill(
    results,
    operation.results.map((r) => {
      const verdict = cell(
        r.identical ? 'identical' : `${r.collections.reduce((n, c) => n + c.differing_count, 0)} differ: ${r.collections.flatMap((c) => c.differing).slice(0, 5).join(', ')}`,
        r.identical ? 'ok' : 'bad',
      );
      return row([cell(r.projection), cell(r.position, 'num'), cell(r.collections.map((c) => `${c.name} ${c.rebuilt}/${c.live}`).join(', ')), verdict], { 'data-result': r.projection });
    }),
  );
  if (operation.status === 'running') setTimeout(() => pollOperation(id).catch(showError), 300);
  else $('#verify-button').disabled = false;
};

const showError = (error) => {
  if (error.status === 401 || error.status === 403) return logout(error.message);
  $('#verify-status').textContent = error.message;
};

const showConsole = async () => {
  await refresh();
  $('#login').hidden = true;
  $('#login-error').textContent = '';
  $('#console').hidden = false;
  $('#logout').hidden = false;
  clearInterval(refreshTimer);
  refreshTimer = setInterval(() => refresh().catch(showError), 5000);
};

const logout = (message = '') => {
  sessionStorage.removeItem(KEY);
  clearInterval(refreshTimer);
  $('#console').hidden = true;
  $('#logout').hidden = true;
  $('#login').hidden = false;
  $('#login-error').textContent = message;
};

document.addEventListener('DOMContentLoaded', () => {
  $('#login-form').addEventListener('submit', (event) => {
    event.preventDefault();
    sessionStorage.setItem(KEY, $('#admin-key').value);
    showConsole().catch((error) => logout(error.message));
  });
  $('#logout').addEventListener('click', () => logout());
  $('#state-form').addEventListener('submit', (event) => {
    event.preventDefault();
    showState();
  });
  $('#verify-form').addEventListener('submit', async (event) => {
    event.preventDefault();
    $('#verify-button').disabled = true;
    try {
      const operation = await api('/admin/operations/verify', { method: 'POST', body: JSON.stringify({ projection: $('#verify-projection').value }) });
      await pollOperation(operation.id);
    } catch (error) {
      $('#verify-button').disabled = false;
      showError(error);
    }
  });
  if (sessionStorage.getItem(KEY)) showConsole().catch((error) => logout(error.message));
});
