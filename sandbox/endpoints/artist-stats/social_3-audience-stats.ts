import { audienceRoute } from "../../families/artist-stats.js";

export default audienceRoute("social_3-audience-stats", "social_3");
