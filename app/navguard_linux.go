//go:build desktop && linux

package app

/*
#include <gtk/gtk.h>
#include <webkit2/webkit2.h>
#include <string.h>

// Only the app's own pages may be shown. WebKitGTK navigates to whatever is dropped on the page
// when the page has not yet answered the drag (a race the page cannot win on a busy machine),
// and a link in model output must never replace the app either.
static gboolean gantry_decide_policy(WebKitWebView *view, WebKitPolicyDecision *decision,
                                     WebKitPolicyDecisionType type, gpointer data) {
	if (type == WEBKIT_POLICY_DECISION_TYPE_RESPONSE) {
		return FALSE;
	}
	WebKitNavigationAction *action = webkit_navigation_policy_decision_get_navigation_action(
		WEBKIT_NAVIGATION_POLICY_DECISION(decision));
	const char *uri = webkit_uri_request_get_uri(webkit_navigation_action_get_request(action));
	if (type == WEBKIT_POLICY_DECISION_TYPE_NAVIGATION_ACTION && uri != NULL &&
	    strncmp(uri, "wails://", 8) == 0) {
		return FALSE;
	}
	g_printerr("gantry: blocked navigation to %s\n", uri != NULL ? uri : "(null)");
	webkit_policy_decision_ignore(decision);
	return TRUE;
}

static WebKitWebView *gantry_find_webview(GtkWidget *w) {
	if (WEBKIT_IS_WEB_VIEW(w)) {
		return WEBKIT_WEB_VIEW(w);
	}
	if (!GTK_IS_CONTAINER(w)) {
		return NULL;
	}
	WebKitWebView *found = NULL;
	GList *children = gtk_container_get_children(GTK_CONTAINER(w));
	for (GList *l = children; l != NULL && found == NULL; l = l->next) {
		found = gantry_find_webview(GTK_WIDGET(l->data));
	}
	g_list_free(children);
	return found;
}

static gboolean gantry_install_guard(gpointer data) {
	GList *windows = gtk_window_list_toplevels();
	for (GList *l = windows; l != NULL; l = l->next) {
		WebKitWebView *view = gantry_find_webview(GTK_WIDGET(l->data));
		if (view != NULL && g_object_get_data(G_OBJECT(view), "gantry-guard") == NULL) {
			g_object_set_data(G_OBJECT(view), "gantry-guard", GINT_TO_POINTER(1));
			g_signal_connect(view, "decide-policy", G_CALLBACK(gantry_decide_policy), NULL);
		}
	}
	g_list_free(windows);
	return G_SOURCE_REMOVE;
}

// GTK may only be touched on its main thread; run there.
static void gantry_guard_navigation(void) {
	g_idle_add(gantry_install_guard, NULL);
}
*/
import "C"

// guardNavigation keeps the window on the app's own pages (see the C comment above).
func guardNavigation() { C.gantry_guard_navigation() }
