import { audienceRoute } from "../../families/artist-stats.js";

export default audienceRoute("video-audience-stats", "video");
