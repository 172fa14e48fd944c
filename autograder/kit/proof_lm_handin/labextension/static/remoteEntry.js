/* proof-lm's Hand In button for JupyterLab 4, written by hand: there is no build step.
 *
 * JupyterLab loads a prebuilt extension as a module federation container: this script sets
 * window._JUPYTERLAB['proof-lm-hand-in'] to an object with init() and get('./extension'), and the
 * module get gives holds one plugin. The plugin imports none of JupyterLab's packages (so it shares
 * nothing and needs nothing shared): it uses the application it is given (commands, shell, server
 * settings). Its toolbar button and File menu entry are declared in
 * schemas/proof-lm-hand-in/plugin.json; the hand-in itself is the kit's submit.py, which the server
 * extension (proof_lm_handin) runs on the saved file.
 */
(function () {
  'use strict';

  const NAME = 'proof-lm-hand-in';
  const COMMAND = 'proof-lm:hand-in';
  let busy = false; // one hand-in at a time

  /** The notebook open in the main area, or null. */
  function currentNotebook(app) {
    const widget = app.shell.currentWidget;
    const context = widget && widget.context;
    const path = context && (context.localPath || context.path);
    const isNotebook = widget && widget.content && typeof path === 'string';
    return isNotebook && path.endsWith('.ipynb') ? widget : null;
  }

  /** A cookie's value (JupyterLab's own requests send _xsrf back the same way). */
  function cookie(name) {
    const found = document.cookie.match('\\b' + name + '=([^;]*)\\b');
    return found ? found[1] : undefined;
  }

  /** POST the saved notebook's path to the server extension; its answer (an Error if refused). */
  async function handIn(app, path) {
    const settings = app.serviceManager.serverSettings;
    const headers = { 'Content-Type': 'application/json' };
    if (settings.token) {
      headers.Authorization = 'token ' + settings.token;
    }
    const xsrf = cookie('_xsrf');
    if (xsrf) {
      headers['X-XSRFToken'] = xsrf;
    }
    const url = settings.baseUrl.replace(/\/?$/, '/') + 'proof-lm/hand-in';
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ path }),
      credentials: 'same-origin',
      cache: 'no-store'
    });
    let answer = {};
    try {
      answer = JSON.parse(await response.text());
    } catch (error) {
      answer = {}; // not JSON: the status says what went wrong
    }
    if (response.status === 404) {
      throw new Error(
        'this JupyterLab has no hand-in (404): install the kit (pip install -e .) and start ' +
          'JupyterLab again'
      );
    }
    if (!response.ok) {
      throw new Error(answer.message || 'the Jupyter server answered ' + response.status);
    }
    return answer;
  }

  /** An element with a class and, optionally, text. */
  function element(tag, className, text) {
    const node = document.createElement(tag);
    node.className = className;
    if (text !== undefined) {
      node.textContent = text;
    }
    return node;
  }

  /** A dialog in JupyterLab's style showing a text report; its say/button/finish/show methods. */
  function openDialog(title) {
    const host = element('div', 'jp-Dialog jp-ThemedContainer ' + NAME);
    const content = element('div', 'jp-Dialog-content');
    const body = element('div', 'jp-Dialog-body');
    const report = element('pre', NAME + '-report');
    Object.assign(report.style, {
      whiteSpace: 'pre-wrap',
      maxHeight: '60vh',
      overflow: 'auto',
      fontFamily: 'var(--jp-code-font-family)',
      fontSize: 'var(--jp-code-font-size)'
    });
    const footer = element('div', 'jp-Dialog-footer');
    const buttons = element('div', 'jp-Dialog-footerButtons'); // as JupyterLab's own dialogs
    footer.append(buttons);
    body.append(report);
    content.append(element('div', 'jp-Dialog-header', title), body, footer);
    host.append(content);
    const hide = () => host.remove();
    const onKey = event => {
      if (event.key === 'Escape' && host.isConnected) {
        event.stopPropagation();
        hide();
      }
    };
    const button = (label, accept, onClick) => {
      const kind = accept ? 'jp-mod-accept' : 'jp-mod-reject';
      const node = element('button', 'jp-Dialog-button jp-mod-styled ' + kind);
      node.append(element('div', 'jp-Dialog-buttonLabel', label));
      node.addEventListener('click', () => {
        hide();
        if (onClick) {
          onClick();
        }
      });
      buttons.append(node);
      return node;
    };
    const waiting = button('Hide (the hand-in goes on)', false);
    document.body.append(host);
    return {
      say: text => {
        report.textContent = text;
      },
      button,
      show: () => {
        if (!host.isConnected) {
          document.body.append(host);
        }
      },
      finish: () => {
        waiting.remove();
        button('Close', false).focus();
        document.addEventListener('keydown', onKey, true);
      }
    };
  }

  /** Save the open notebook as File > Save does, hand it in with submit.py, show what it said. */
  async function execute(app) {
    const notebook = currentNotebook(app);
    if (notebook === null) {
      const view = openDialog('Hand In');
      view.say('Open the notebook you want to hand in, click into it, then press Hand In.');
      view.finish();
      return;
    }
    const context = notebook.context;
    const path = context.localPath || context.path;
    const name = path.split('/').pop();
    const view = openDialog('Hand in ' + name);
    busy = true;
    app.commands.notifyCommandChanged(COMMAND);
    try {
      view.say('Saving ' + name + ' ...');
      // an edit that reaches the model while it saves leaves it dirty: save what came since
      for (let saves = 0; saves < 3 && (saves === 0 || context.model.dirty); saves++) {
        await app.commands.execute('docmanager:save');
      }
      if (context.model.dirty) {
        throw new Error(
          'the notebook was not saved, so nothing was handed in: save it (File > Save ' +
            'Notebook) and press Hand In again'
        );
      }
      view.say(
        'Saved. Handing in ' + path + ' with submit.py and waiting for the grade ' +
          '(usually within a minute) ...'
      );
      const answer = await handIn(app, path);
      const printed = [answer.output, answer.error].filter(Boolean).join('\n').trim();
      view.say(printed || 'submit.py ended with code ' + answer.code + ' and printed nothing');
      if (answer.feedback) {
        view.button('Open the feedback page', true, () =>
          app.commands.execute('docmanager:open', { path: answer.feedback })
        );
      }
    } catch (error) {
      view.say('Not handed in: ' + (error && error.message ? error.message : String(error)));
    } finally {
      busy = false;
      app.commands.notifyCommandChanged(COMMAND);
      view.finish();
      view.show();
    }
  }

  const plugin = {
    id: NAME + ':plugin',
    description: 'A Hand In button: save the notebook, hand it in with submit.py, show the grade.',
    autoStart: true,
    activate: app => {
      app.commands.addCommand(COMMAND, {
        label: 'Hand In',
        caption: 'Save this notebook, hand it in to the course server and show the grade',
        isEnabled: () => !busy,
        execute: () => execute(app)
      });
    }
  };

  const modules = { './extension': () => ({ __esModule: true, default: plugin }) };
  window._JUPYTERLAB = window._JUPYTERLAB || {};
  window._JUPYTERLAB[NAME] = {
    init: () => Promise.resolve(), // nothing to share, nothing needed from the shared scope
    get: module =>
      module in modules
        ? Promise.resolve(modules[module])
        : Promise.reject(new Error(NAME + ' has no module ' + module))
  };
})();
