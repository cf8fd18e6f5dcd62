"""The web application: the FastAPI app that puts the subsystems together, its table and review
routes, the rules pages, the logs and the collector; the static front end it serves lies beside this
package (``sixnimmt/server/static``). May import every other part of the server."""
