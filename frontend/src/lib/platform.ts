// Whether the app runs on a Mac, where Cmd stands for Ctrl and Option+letter types characters
// (ñ, å), so shortcuts differ. The desktop app's WebKit and a browser both report it here.
export const isMac = typeof navigator !== 'undefined' && /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent)
