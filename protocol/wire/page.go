package wire

import "strconv"

// pageCookiePrefix begins the name of the status page's login cookie.
const pageCookiePrefix = "vxd_page_"

// PageCookieName is the login cookie of the daemon listening on port.
// Cookies ignore ports, so the port is in the name: two daemons' pages
// never overwrite each other's login.
func PageCookieName(port int) string { return pageCookiePrefix + strconv.Itoa(port) }
