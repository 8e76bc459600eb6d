import { radioRoute } from "../../families/artist-stats.js";

export default radioRoute("radio", "radio");
