// SPDX-License-Identifier: GPL-2.0-only
/*
 * app.js - the imatrust fleet console: plain JavaScript, no framework,
 * no build step, nothing loaded from elsewhere.
 *
 * The page holds no data of its own. With the operator's bearer token
 * (kept in this tab's sessionStorage, sent only as the Authorization
 * header) it polls GET /v1/machines every second and, for the machine
 * opened, GET /v1/machines/{id}, /events and the policy, and /records
 * when those say the records may have changed (RECORDS_MS); its actions
 * are the API's: approve, remove, add a reference. GET /v1/whoami, once
 * a sign-in, says the token's role: a reader sees no action buttons (the
 * verifier would refuse them: 403 naming the role needed, shown as any
 * refusal is).
 *
 * THE RULE OF THIS FILE: every value that comes from the API (machine
 * ids, paths, digests, reasons, certificate names, policy text: a
 * machine, or whoever holds its TPM, chooses many of them) reaches the
 * page as text only: textContent or createTextNode, or an attribute that
 * is not a URL (className, title, dataset). Never innerHTML, outerHTML,
 * insertAdjacentHTML, document.write, eval or a URL made of data but for
 * encodeURIComponent in the API's own paths. The Content-Security-Policy
 * (no inline script, script-src 'self') is the second wall, not the
 * first.
 */
'use strict';

(function () {
	const KEY = 'imatrust-token';
	const POLL_MS = 1000;		/* the fleet, and the machine opened */
	/* The records of the machine opened are read again when its boot,
	 * record count, state, reason, events, policy or the filter moved,
	 * and at least this often: a reference imported or withdrawn can
	 * change what accepted a record and nothing else shows it. Each
	 * record read is explained by the verifier (issue #33). */
	const RECORDS_MS = 30000;
	const STATES = ['trusted', 'untrusted', 'failed', 'pending',
			'enrolling', 'stale'];
	/* what "not known" shows: the verdicts the API filters that a
	 * policy may refuse (unknown and mismatch are indexed) */
	const NOT_KNOWN = ['unknown', 'mismatch', 'bad-signature',
			   'violation'];
	/* the source of references added here, as `imatrust ref add` */
	const MANUAL = { kind: 'dir-tree', name: 'manual' };

	const $ = (id) => document.getElementById(id);

	let fleet = [];		/* the last GET /v1/machines, all pages */
	let filter = '';	/* the state shown; '' for all */
	let timer = null;
	let view = null;	/* the machine opened: see openMachine() */
	let shownFleet = '';	/* what renderFleet() drew last */
	let role = null;	/* the token's, from GET /v1/whoami */

	/* A 401: the token is wrong, or was removed meanwhile. */
	class Refused extends Error {}

	function token() {
		return sessionStorage.getItem(KEY);
	}

	async function api(method, path, body) {
		const t = token();
		if (!t)
			throw new Refused('no token');
		const opt = { method, cache: 'no-store',
			      headers: { Authorization: 'Bearer ' + t } };
		if (body !== undefined) {
			opt.headers['Content-Type'] = 'application/json';
			opt.body = JSON.stringify(body);
		}
		const r = await fetch(path, opt);
		let data = null;
		try {
			data = await r.json();
		} catch (e) {
			data = null;
		}
		const msg = data && data.error ? data.error.message :
			'HTTP ' + r.status;
		if (r.status === 401)
			throw new Refused(msg);
		if (!r.ok)
			throw new Error(msg);
		return data;
	}

	const enc = encodeURIComponent;

	/* May this token approve, remove, add references? (the route
	 * table's roles: a reader may not) */
	function canChange() {
		return role === 'operator' || role === 'admin';
	}

	/* Who the token is: its name and role in the header. */
	async function whoami() {
		const w = await api('GET', '/v1/whoami');
		role = w.role;
		$('whoami').textContent = w.name + ' (' + w.role + ')';
		document.body.dataset.role = w.role;
	}

	/* ---- text-only DOM helpers (see THE RULE above) ---------------- */

	/* A new element whose content is @text, as text. */
	function el(tag, text, cls) {
		const e = document.createElement(tag);

		if (text !== undefined && text !== null)
			e.textContent = String(text);
		if (cls)
			e.className = cls;
		return e;
	}

	/* A table row of cells: strings (as text) or elements. */
	function row(cells) {
		const tr = document.createElement('tr');

		for (const c of cells) {
			if (c instanceof Node) {
				const td = document.createElement('td');
				td.appendChild(c);
				tr.appendChild(td);
			} else {
				tr.appendChild(el('td', c));
			}
		}
		return tr;
	}

	/* A <dl> of [term, value] pairs, values as text. */
	function facts(dl, pairs) {
		dl.replaceChildren();
		for (const [k, v] of pairs) {
			dl.appendChild(el('dt', k));
			dl.appendChild(el('dd', v));
		}
	}

	function when(t) {
		if (t === null || t === undefined)
			return 'never';
		return new Date(t * 1000).toLocaleString();
	}

	/* A stored reason (judge.c), in one line of text. */
	function reasonText(r) {
		if (r === null || r === undefined)
			return '';
		if (typeof r !== 'object')
			return String(r);
		if (r.check === 'record')
			return 'record ' + r.index + ' ' + r.verdict + ': ' +
				r.path + ' (' + r.digest + ')' +
				(r.why ? ' - ' + r.why : '');
		if (r.message !== undefined)
			return (r.check ? r.check + ': ' : '') + r.message;
		return JSON.stringify(r);
	}

	/* A cell of a reason: the line, the whole JSON as its title. */
	function reasonCell(r) {
		const s = el('span', reasonText(r), 'reason');

		if (r !== null && r !== undefined)
			s.title = JSON.stringify(r);
		return s;
	}

	function stateSpan(state) {
		return el('span', state, 'state ' + state);
	}

	/* The firmware event log of the current boot (BootLogSummary). */
	function bootText(log) {
		if (log === undefined)
			return '...';
		if (log === null)
			return 'no firmware log';
		let s = 'firmware log ' + log.size + ' bytes';
		if (log.baseline)
			s += log.baseline.current ? ', the baseline' :
				', not the baseline';
		return s;
	}

	function acceptedText(a) {
		if (a === null || a === undefined)
			return 'not accepted';
		if (a.source !== undefined)
			return a.source + (a.package ? ' ' + a.package + ' ' +
				(a.version || '') : '');
		if (a.rule !== undefined)
			return 'exclude ' + a.rule;
		if (a.key !== undefined)
			return 'key ' + a.key + ' (' + a.keyid + ')';
		return JSON.stringify(a);
	}

	/* ---- notices and the confirmation dialog ------------------------ */

	function notice(text, isError) {
		const n = $('notice');

		n.textContent = text;
		n.className = isError ? 'error' : '';
		n.hidden = !text;
	}

	/*
	 * Ask before @action (async) runs: an in-page <dialog>, not the
	 * browser's own confirm box (which a test cannot drive). The dialog stays open with the error when the
	 * action fails; on success it closes and @done(result) runs.
	 */
	function confirmDialog(title, text, detail, okLabel, action, done) {
		const d = $('confirm');
		const ok = $('confirm-ok');

		$('confirm-title').textContent = title;
		$('confirm-text').textContent = text;
		$('confirm-detail').textContent = detail;
		$('confirm-error').textContent = '';
		ok.textContent = okLabel;
		ok.disabled = false;
		ok.onclick = async () => {
			ok.disabled = true;
			try {
				const result = await action();
				d.close();
				done(result);
			} catch (e) {
				if (e instanceof Refused) {
					d.close();
					signOut(e.message);
					return;
				}
				$('confirm-error').textContent = e.message;
				ok.disabled = false;
			}
		};
		$('confirm-cancel').onclick = () => d.close();
		d.showModal();
	}

	/* ---- the fleet ---------------------------------------------------- */

	async function fetchFleet() {
		let all = [];
		let after = null;

		do {
			const q = '?limit=1000' + (after === null ? '' :
				'&after=' + enc(after));
			const page = await api('GET', '/v1/machines' + q);
			all = all.concat(page.machines);
			after = page.next;
		} while (after !== null);
		return all;
	}

	function renderCounts() {
		const counts = $('counts');
		const n = {};

		for (const s of STATES)
			n[s] = 0;
		for (const m of fleet)
			n[m.state] = (n[m.state] || 0) + 1;
		counts.replaceChildren();
		for (const s of [''].concat(STATES)) {
			const b = el('button', (s || 'all') + ' ' +
				     (s ? n[s] : fleet.length),
				     s === filter ? 'active' : '');
			b.type = 'button';
			b.dataset.state = s || 'all';
			b.onclick = () => {
				filter = s;
				renderFleet();
			};
			counts.appendChild(b);
		}
	}

	function renderFleet() {
		const rows = $('fleet-rows');
		const shown = fleet.filter((m) => !filter || m.state === filter);
		const key = JSON.stringify([filter, fleet]);

		/* unchanged: keep the rows, and a click that is under way */
		if (key === shownFleet && rows.children.length === shown.length)
			return;
		shownFleet = key;
		renderCounts();
		rows.replaceChildren();
		for (const m of shown) {
			const tr = row([m.id, stateSpan(m.state), m.tnc,
					bootText(m.boot_log),
					when(m.last_seen),
					reasonCell(m.state_reason)]);
			tr.dataset.id = m.id;
			tr.onclick = () => openMachine(m.id);
			rows.appendChild(tr);
		}
		$('fleet-empty').hidden = shown.length > 0;
	}

	/* ---- one machine -------------------------------------------------- */

	function openMachine(id) {
		view = { id, events: [], after: null, policy: null,
			 policyName: null, busy: false, shown: '',
			 recs: null, recsKey: '', recsAt: 0 };
		for (const t of ['m-events', 'm-records', 'm-boots'])
			$(t).replaceChildren();
		facts($('m-facts'), []);
		facts($('m-policy'), []);
		$('m-id').textContent = id;
		$('m-state').textContent = '';
		$('fleet').hidden = true;
		$('machine').hidden = false;
		notice('');
		refreshMachine().catch(handleError);
	}

	function closeMachine() {
		view = null;
		$('machine').hidden = true;
		$('fleet').hidden = false;
		renderFleet();
	}

	/* Records of the filter chosen; "not known" merges four filters. */
	async function fetchRecords(id) {
		const f = $('m-filter').value;
		const base = '/v1/machines/' + enc(id) + '/records?limit=1000';
		const wanted = f === 'not-known' ? NOT_KNOWN : [f];
		let records = [];
		let more = false;

		for (const v of wanted) {
			const page = await api('GET', base +
				(v ? '&verdict=' + enc(v) : ''));
			records = records.concat(page.records);
			more = more || page.next !== null;
		}
		records.sort((a, b) => a.index - b.index);
		return { records, more };
	}

	/* What the records shown depend on, but for the references. */
	function recordsKey(v, d) {
		const b = d.boot;

		return JSON.stringify([b ? [b.id, b.next_record_index] : null,
				       d.machine.state, d.machine.state_reason,
				       v.events.length, d.policy,
				       $('m-filter').value]);
	}

	/* The records, read again only when recordsKey() moved or they
	 * are RECORDS_MS old (or were dropped: v.recs = null). */
	async function records(v, d) {
		const key = recordsKey(v, d);

		if (v.recs === null || key !== v.recsKey ||
		    Date.now() - v.recsAt >= RECORDS_MS) {
			v.recs = await fetchRecords(v.id);
			v.recsKey = key;
			v.recsAt = Date.now();
		}
		return v.recs;
	}

	async function refreshMachine() {
		if (view === null || view.busy)
			return;
		const v = view;
		v.busy = true;
		try {
			const d = await api('GET', '/v1/machines/' + enc(v.id));
			/* only what is new: the list is oldest first */
			let page;
			do {
				page = await api('GET', '/v1/machines/' +
					enc(v.id) + '/events?limit=1000' +
					(v.after === null ? '' :
					 '&after=' + v.after));
				v.events = v.events.concat(page.events);
				if (page.events.length > 0)
					v.after = page.events[
						page.events.length - 1].id;
			} while (page.next !== null);
			const recs = await records(v, d);
			if (v.policyName !== d.policy) {
				v.policy = await api('GET', '/v1/policies/' +
						     enc(d.policy));
				v.policyName = d.policy;
			}
			const key = JSON.stringify([d, recs, v.events.length,
						    v.policyName]);
			if (view === v && key !== v.shown) {
				v.shown = key;
				renderMachine(v, d, recs);
			}
		} finally {
			v.busy = false;
		}
	}

	function renderMachine(v, d, recs) {
		const m = d.machine;
		const cert = m.ek_cert;

		$('m-state').replaceChildren(stateSpan(m.state));
		facts($('m-facts'), [
			['TNC', m.tnc],
			['Reason', reasonText(m.state_reason)],
			['Last evidence', when(m.last_seen)],
			['Enrolled', when(m.created_at)],
			['Approved', m.approved ? 'yes' : 'no'],
			['EK fingerprint', m.ek_fpr || 'none'],
			['EK certificate', cert ? 'subject "' + cert.subject +
			 '", issuer "' + cert.issuer + '"' : 'none'],
			['Current boot', d.boot ? d.boot.id + ' (TPM reset ' +
			 d.boot.reset_count + ', ' +
			 d.boot.next_record_index + ' records)' : 'none'],
			['Firmware log', bootText(d.boot_log)],
			['History', historyText(d.boot)],
		]);
		$('m-approve').hidden = m.state !== 'pending' || !canChange();
		$('m-remove').hidden = !canChange();
		$('m-approve').onclick = () => approve(m);
		$('m-remove').onclick = () => remove(m);
		renderPolicy(v.policy.policy);
		renderBoots(v, d);
		renderRecords(m, recs);
		renderEvents(v);
	}

	/* Records the machine deleted before they were stored, if any. */
	function historyText(boot) {
		const h = boot && boot.history;
		if (!boot)
			return 'none';
		if (!h)
			return 'complete';
		return 'records ' + h.deleted_from + ' to ' +
			(h.deleted_to - 1) + ' deleted before they were stored' +
			(h.after_stored ? ', after stored ones' : '');
	}

	function renderPolicy(p) {
		$('m-policy-name').textContent = p.name + (p.default ?
			' (the default)' : '');
		const pairs = [
			['Machines', p.machines.join(', ') || '(none)'],
			['Sources', p.sources.join(', ') || '(none)'],
			['Excludes', p.excludes.map((e) =>
				JSON.stringify(e)).join(', ') || '(none)'],
			['Conffiles', p.conffiles],
		];
		if (p.violations !== undefined)
			pairs.push(['Violations', p.violations]);
		if (p.any_path !== undefined)
			pairs.push(['Any path', p.any_path]);
		if (p.boot !== undefined)
			pairs.push(['Boot', JSON.stringify(p.boot)]);
		facts($('m-policy'), pairs);
	}

	/* Boots as the events name them: each boot_id since its first. */
	function renderBoots(v, d) {
		const boots = new Map();

		for (const e of v.events)
			if (e.boot_id !== null && !boots.has(e.boot_id))
				boots.set(e.boot_id, e);
		const tb = $('m-boots');
		tb.replaceChildren();
		for (const [id, e] of [...boots].reverse()) {
			const cur = d.boot && d.boot.id === id;
			tb.appendChild(row([id + (cur ? ' (current)' : ''),
					    when(cur ? d.boot.started_at :
						 e.time), e.kind]));
		}
	}

	function renderRecords(m, recs) {
		const tb = $('m-records');

		tb.replaceChildren();
		for (const r of recs.records) {
			let action = '';
			if (canChange() && (r.verdict === 'unknown' ||
					    r.verdict === 'mismatch')) {
				action = el('button', 'Add reference...',
					    'add-ref');
				action.type = 'button';
				action.onclick = () => addReference(m, r);
			}
			const tr = row([String(r.index), String(r.pcr),
					el('span', r.path, 'path'),
					el('span', r.algo + ':' + r.digest,
					   'mono'),
					el('span', r.verdict, 'verdict ' +
					   r.verdict),
					acceptedText(r.accepted_by), action]);
			tr.dataset.index = String(r.index);
			tb.appendChild(tr);
		}
		$('m-records-note').textContent = recs.records.length +
			' shown' + (recs.more ? ' (the first page of each ' +
				    'verdict; more exist)' : '');
	}

	function renderEvents(v) {
		const tb = $('m-events');

		tb.replaceChildren();
		for (const e of v.events.slice().reverse()) {
			const st = e.to !== null ? (e.from || '-') + ' -> ' +
				e.to : '';
			tb.appendChild(row([when(e.time), e.kind, st,
					    reasonCell(e.reason)]));
		}
	}

	/* ---- actions ------------------------------------------------------ */

	function approve(m) {
		const cert = m.ek_cert;

		if (!m.ek_fpr) {
			notice('Machine ' + m.id + ' has no EK fingerprint: ' +
			       'approve it with the CLI', true);
			return;
		}
		confirmDialog('Approve ' + m.id + '?',
			'Approve this machine only if its EK is the one ' +
			'you expect: compare the fingerprint with the one ' +
			'recorded for this machine\'s TPM.',
			'EK fingerprint: ' + m.ek_fpr + '\nEK certificate: ' +
			(cert ? cert.subject + ' / ' + cert.issuer : 'none') +
			'\nReason pending: ' + reasonText(m.state_reason),
			'Approve',
			() => api('POST', '/v1/machines/' + enc(m.id) +
				  '/approve', { v: 1, ek: m.ek_fpr }),
			(r) => {
				notice('Approved ' + r.machine.id + ' (by ' +
				       r.approved_by + ')');
				if (view !== null)
					view.recs = null;
				refreshMachine().catch(handleError);
			});
	}

	function remove(m) {
		confirmDialog('Remove ' + m.id + '?',
			'The machine is forgotten with its boots, records ' +
			'and events; its agent must enroll again.',
			'Machine: ' + m.id + '\nState: ' + m.state +
			'\nEK fingerprint: ' + (m.ek_fpr || 'none'),
			'Remove',
			() => api('DELETE', '/v1/machines/' + enc(m.id)),
			(r) => {
				closeMachine();
				notice('Removed ' + r.removed.id + ' (' +
				       r.removed.boots + ' boots, ' +
				       r.removed.records + ' records)');
			});
	}

	function addReference(m, r) {
		confirmDialog('Add a reference?',
			'Every machine whose policy trusts the source ' +
			MANUAL.kind + ':' + MANUAL.name + ' will accept ' +
			'this file with this digest. Add it only for a ' +
			'file you know to be good.',
			'Path: ' + r.path + '\nDigest: ' + r.algo + ':' +
			r.digest + '\nSeen on: ' + m.id + ', record ' +
			r.index + '\nSource: ' + MANUAL.kind + ':' +
			MANUAL.name,
			'Add reference',
			() => api('POST', '/v1/references', {
				v: 1, source: MANUAL,
				refs: [{ path: r.path, algo: r.algo,
					 digest: r.digest }] }),
			(res) => {
				notice('Reference added: ' + res.added +
				       ' stored, ' + res.machines_now_trusted +
				       ' machine(s) now trusted');
				if (view !== null)
					view.recs = null;
				refreshMachine().catch(handleError);
			});
	}

	/* ---- signing in and out, the poll -------------------------------- */

	function signedIn() {
		$('login').hidden = true;
		$('logout').hidden = false;
		if (view === null)
			$('fleet').hidden = false;
	}

	/* Forget the token and every datum shown. */
	function signOut(why) {
		clearTimeout(timer);
		timer = null;
		sessionStorage.removeItem(KEY);
		fleet = [];
		view = null;
		shownFleet = '';
		role = null;
		$('whoami').textContent = '';
		delete document.body.dataset.role;
		for (const t of ['fleet-rows', 'counts', 'm-events',
				 'm-records', 'm-boots', 'm-facts',
				 'm-policy'])
			$(t).replaceChildren();
		$('fleet').hidden = true;
		$('machine').hidden = true;
		$('logout').hidden = true;
		$('login').hidden = false;
		$('polled').textContent = '';
		notice('');
		$('login-error').textContent = why ? 'Token refused: ' + why : '';
	}

	function handleError(e) {
		if (e instanceof Refused)
			signOut(e.message);
		else
			notice('Verifier: ' + e.message, true);
	}

	async function tick() {
		timer = null;
		try {
			if (role === null)
				await whoami();
			fleet = await fetchFleet();
			signedIn();
			if (view === null)
				renderFleet();
			else
				await refreshMachine();
			$('polled').textContent = 'updated ' +
				new Date().toLocaleTimeString();
			if ($('notice').className === 'error')
				notice('');
		} catch (e) {
			handleError(e);
		}
		if (token() && timer === null)
			timer = setTimeout(tick, POLL_MS);
	}

	function start() {
		clearTimeout(timer);
		timer = null;
		tick();
	}

	$('login-form').addEventListener('submit', (ev) => {
		ev.preventDefault();
		const t = $('token').value.trim();
		$('token').value = '';
		$('login-error').textContent = '';
		if (!t)
			return;
		sessionStorage.setItem(KEY, t);
		start();
	});
	$('logout').addEventListener('click', () => signOut(''));
	$('back').addEventListener('click', closeMachine);
	$('m-filter').addEventListener('change', () => {
		$('m-records').replaceChildren();
		if (view !== null) {
			view.shown = '';
			view.recs = null;
		}
		refreshMachine().catch(handleError);
	});
	if (token())
		start();
}());
