import { STAT_SOURCES } from "../../dataset/stat-series.js";
import { PREFIX, socialArtist, todayOf, window, wrapped } from "../../families/artist-stats.js";
import { sandboxRoute } from "../../http/endpoint-route.js";
import { ValidationError } from "../../http/errors.js";
import { statBody } from "../../shapes.js";

export default sandboxRoute({
  method: "GET",
  path: `${PREFIX}/stat/:source`,
  operation: "artistStats.stat",
  handle: (context) => {
    const source = context.params.source ?? "";
    if (!(source in STAT_SOURCES))
      throw new ValidationError({ source: ["The selected source is invalid."] });
    const artist = socialArtist(context);
    const { since, until } = window(context.query, todayOf(context.data));
    const series = context.data.statSeries(artist.cm_artist, source, since, until);
    return wrapped(statBody(series, context.knobs.shapes));
  },
});
