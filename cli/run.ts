// The AWS SDK versions pinned in package-lock.json support Node 20; their notice that later releases will need
// Node 22 would print on every run, so it is switched off unless the user set the variable themselves.
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true';
const { main } = await import('./main.js');

const code = await main(process.argv.slice(2));
if (code !== 0) process.exit(code);

// A module (top-level await needs one), though it exports nothing.
export {};
