// Herald dashboard: progressive enhancement only. Every page works without
// this file; it adds copy buttons and confirmations before destructive
// forms. No framework, no globals, nothing from other hosts.
(function () {
  'use strict';

  var COPIED_FOR_MS = 2000;
  var restoreTimers = new WeakMap();
  var originalLabels = new WeakMap();

  // announce tells screen-reader users what happened, through the page's
  // aria-live region if it has one.
  function announce(message) {
    var live = document.getElementById('live-status');
    if (live) {
      live.textContent = message;
    }
  }

  function clipboardAvailable() {
    return Boolean(navigator.clipboard && typeof navigator.clipboard.writeText === 'function');
  }

  // selectTarget selects the text of the element named by data-copy-target,
  // so the user can copy it with the keyboard or the context menu.
  function selectTarget(button) {
    var id = button.getAttribute('data-copy-target');
    var target = id ? document.getElementById(id) : null;
    if (!target) {
      return false;
    }
    if (typeof target.select === 'function') {
      target.focus();
      target.select();
      return true;
    }
    var selection = window.getSelection();
    if (!selection) {
      return false;
    }
    var range = document.createRange();
    range.selectNodeContents(target);
    selection.removeAllRanges();
    selection.addRange(range);
    return true;
  }

  function showCopied(button) {
    if (!originalLabels.has(button)) {
      originalLabels.set(button, button.textContent);
    }
    button.textContent = 'Copied';
    announce('Copied to the clipboard');
    clearTimeout(restoreTimers.get(button));
    restoreTimers.set(button, setTimeout(function () {
      button.textContent = originalLabels.get(button);
      originalLabels.delete(button);
      restoreTimers.delete(button);
    }, COPIED_FOR_MS));
  }

  function fallBack(button) {
    if (selectTarget(button)) {
      announce('Text selected: use your browser\'s copy command');
    } else {
      announce('Could not copy to the clipboard');
    }
  }

  function copy(button) {
    var text = button.getAttribute('data-copy');
    if (text === null) {
      return;
    }
    if (!clipboardAvailable()) {
      fallBack(button);
      return;
    }
    navigator.clipboard.writeText(text).then(
      function () { showCopied(button); },
      function () { fallBack(button); }
    );
  }

  function enhanceCopyButtons() {
    var buttons = document.querySelectorAll('button[data-copy]');
    Array.prototype.forEach.call(buttons, function (button) {
      // A button with no way to copy stays hidden.
      if (!clipboardAvailable() && !button.hasAttribute('data-copy-target')) {
        return;
      }
      button.addEventListener('click', function (event) {
        event.preventDefault(); // never submit an enclosing form
        copy(button);
      });
      button.hidden = false;
    });
  }

  function enhanceConfirmForms() {
    var forms = document.querySelectorAll('form[data-confirm]');
    Array.prototype.forEach.call(forms, function (form) {
      form.addEventListener('submit', function (event) {
        if (!window.confirm(form.dataset.confirm)) {
          event.preventDefault();
        }
      });
    });
  }

  function init() {
    enhanceCopyButtons();
    enhanceConfirmForms();
  }

  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', init);
  } else {
    init(); // loaded late (async): the document is already parsed
  }
}());
