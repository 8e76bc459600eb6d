import { audienceRoute } from "../../families/artist-stats.js";

export default audienceRoute("short_video-audience-stats", "short_video");
