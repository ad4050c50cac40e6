package api

import "net/http"

// sessionCookie carries a dashboard session credential (never a token).
const sessionCookie = "vx_session"

func (s *Server) dashboardRoutes(m *http.ServeMux) {}
