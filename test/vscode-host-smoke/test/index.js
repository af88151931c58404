// Test entry that VS Code's extension host loads for --extensionTestsPath: it calls run() and waits
// for the promise; a rejection makes the run exit non-zero.
'use strict';
const path = require('node:path');
const Mocha = require('mocha');

function run() {
  const mocha = new Mocha({ ui: 'tdd', color: false, timeout: 20000, reporter: 'spec' });
  mocha.addFile(path.join(__dirname, 'smoke.test.js'));
  return /** @type {Promise<void>} */ (new Promise((resolve, reject) => {
    try {
      mocha.run((failures) => {
        if (failures > 0) reject(new Error(`${failures} test(s) failed`));
        else resolve();
      });
    } catch (err) {
      reject(err);
    }
  }));
}

module.exports = { run };
