package server

// maxSelfReloads bounds the reloads in a row that only edits of a
// plugin's own sources, made while vxd's last reload asked it, caused.
const maxSelfReloads = 3
