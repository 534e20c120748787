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

// Moderation: loaded on demand (not on the 5 s refresh, which would wipe a message being typed).
const element = (tag, className, text) => {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined) node.textContent = text;
  return node;
};

const percent = (confidence) => `${Number(confidence).toFixed(1)}%`;

/** The photo (its med size, from this origin) with each detection box drawn over it. */
const photoOf = (item) => {
  const photo = element('div', 'photo');
  const img = element('img');
  const url = new URL(item.image.url, location.href);
  url.searchParams.set('size', 'med');
  img.src = `${url.pathname}${url.search}`;
  img.alt = `image ${item.image.id}`;
  photo.append(img);
  for (const label of item.labels) {
    for (const instance of label.Instances) {
      const box = element('div', 'box');
      const b = instance.BoundingBox;
      box.style.left = `${b.Left * 100}%`;
      box.style.top = `${b.Top * 100}%`;
      box.style.width = `${b.Width * 100}%`;
      box.style.height = `${b.Height * 100}%`;
      box.dataset.label = label.Name;
      box.append(element('span', '', `${label.Name} ${percent(instance.Confidence)}`));
      photo.append(box);
    }
  }
  return photo;
};

const attributionOf = (attribution) => {
  const line = element('p', 'attribution');
  if (!attribution) {
    line.textContent = 'no attribution';
    line.classList.add('muted');
    return line;
  }
  const parts = [attribution.title, attribution.author && `by ${attribution.author}`, attribution.license].filter(Boolean);
  line.textContent = `${parts.join(' · ')} `;
  if (attribution.source_url) {
    const link = element('a', '', 'source');
    link.href = attribution.source_url;
    link.rel = 'noopener noreferrer';
    link.target = '_blank';
    line.append(link);
  }
  return line;
};

const decide = async (card, item, status) => {
  const message = card.querySelector('textarea').value.trim();
  for (const button of card.querySelectorAll('button')) button.disabled = true;
  try {
    await api(`/images/${encodeURIComponent(item.image.id)}/public-requests/decision`, {
      method: 'POST',
      body: JSON.stringify({ status, admin_message: message || null }),
    });
    card.classList.add('decided');
    card.dataset.decision = status;
    card.querySelector('.decision').replaceChildren(element('p', status === 'approved' ? 'ok' : 'bad', `${status}${message ? `: ${message}` : ''}`));
  } catch (error) {
    for (const button of card.querySelectorAll('button')) button.disabled = false;
    $('#moderation-status').textContent = error.message;
  }
};

const cardOf = (item) => {
  const card = element('article', 'card');
  card.dataset.image = item.image.id;
  card.append(photoOf(item));
  const labels = item.labels.map((label) => `${label.Name} ${percent(label.Confidence)}`).join(' · ');
  card.append(element('p', 'labels', labels || 'no labels yet'));
  const flags = [...item.unsafe_reasons, ...item.moderation_labels.map((label) => `${label.Name} ${percent(label.Confidence)}`)];
  if (flags.length > 0) card.append(element('p', 'flags', `unsafe: ${[...new Set(flags)].join(', ')}`));
  card.append(attributionOf(item.image.attribution));
  const request = item.public_request;
  if (request?.request_message) card.append(element('p', 'message', `“${request.request_message}”`));
  card.append(element('p', 'meta muted', `${item.image.id} · account ${item.account_id} · ${item.image.status} · ${item.image.created_at}`));
  if (request?.status === 'pending') {
    const decision = element('div', 'decision');
    const text = element('textarea');
    text.placeholder = 'message to the owner (optional)';
    text.maxLength = 500;
    const buttons = element('div');
    const approve = element('button', 'approve', 'Approve');
    const reject = element('button', 'reject', 'Reject');
    approve.type = reject.type = 'button';
    approve.addEventListener('click', () => decide(card, item, 'approved'));
    reject.addEventListener('click', () => decide(card, item, 'rejected'));
    buttons.append(approve, reject);
    decision.append(text, buttons);
    card.append(decision);
  }
  return card;
};

const loadModeration = async () => {
  const queue = $('#moderation-queue').value;
  const response = await fetch(`/v1/admin/images/moderation?queue=${encodeURIComponent(queue)}&limit=50`, { headers: { 'x-api-key': sessionStorage.getItem(KEY) ?? '' } });
  const items = await response.json();
  if (!response.ok) throw Object.assign(new Error(items?.message ?? `HTTP ${response.status}`), { status: response.status });
  $('#moderation-count').textContent = `${response.headers.get('pagination-count') ?? items.length} in this queue`;
  $('#moderation-status').textContent = items.length === 0 ? 'Nothing to moderate here.' : '';
  $('#moderation-items').replaceChildren(...items.map(cardOf));
  $('#moderation-items').dataset.queue = queue;
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
  await loadModeration();
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
  $('#moderation-form').addEventListener('submit', (event) => {
    event.preventDefault();
    loadModeration().catch(showError);
  });
  $('#moderation-queue').addEventListener('change', () => loadModeration().catch(showError));
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
